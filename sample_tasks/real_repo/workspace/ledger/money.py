"""Amounts of money: exact decimals with a currency, parsed from and formatted to text.

Every amount is a Decimal quantized to its currency's minor unit; nothing here uses floats."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

PIVOT = "EUR"  # the currency cross rates go through when no direct rate is known


class MoneyError(ValueError):
    """An amount that cannot be read, or arithmetic across two currencies."""


@dataclass(frozen=True)
class Currency:
    code: str
    digits: int  # digits of the minor unit: 2 for cents, 0 for yen, 3 for fils
    symbol: str

    @property
    def quantum(self) -> Decimal:
        return Decimal(1).scaleb(-self.digits)


CURRENCIES: dict[str, Currency] = {
    "USD": Currency("USD", 2, "$"),
    "EUR": Currency("EUR", 2, "€"),
    "GBP": Currency("GBP", 2, "£"),
    "JPY": Currency("JPY", 0, "¥"),
    "CHF": Currency("CHF", 2, "CHF "),
    "SEK": Currency("SEK", 2, "kr "),
    "NOK": Currency("NOK", 2, "kr "),
    "DKK": Currency("DKK", 2, "kr "),
    "PLN": Currency("PLN", 2, "zł "),
    "CZK": Currency("CZK", 2, "Kč "),
    "HUF": Currency("HUF", 2, "Ft "),
    "CAD": Currency("CAD", 2, "C$"),
    "AUD": Currency("AUD", 2, "A$"),
    "NZD": Currency("NZD", 2, "NZ$"),
    "SGD": Currency("SGD", 2, "S$"),
    "HKD": Currency("HKD", 2, "HK$"),
    "KRW": Currency("KRW", 0, "₩"),
    "INR": Currency("INR", 2, "₹"),
    "BRL": Currency("BRL", 2, "R$"),
    "MXN": Currency("MXN", 2, "MX$"),
    "ZAR": Currency("ZAR", 2, "R "),
    "TRY": Currency("TRY", 2, "₺"),
    "ILS": Currency("ILS", 2, "₪"),
    "AED": Currency("AED", 2, "AED "),
    "SAR": Currency("SAR", 2, "SAR "),
    "KWD": Currency("KWD", 3, "KD "),
    "BHD": Currency("BHD", 3, "BD "),
    "OMR": Currency("OMR", 3, "OMR "),
    "JOD": Currency("JOD", 3, "JD "),
    "TND": Currency("TND", 3, "DT "),
    "CLP": Currency("CLP", 0, "CLP "),
    "ISK": Currency("ISK", 0, "kr "),
    "VND": Currency("VND", 0, "₫"),
    "IDR": Currency("IDR", 2, "Rp "),
    "THB": Currency("THB", 2, "฿"),
    "MYR": Currency("MYR", 2, "RM "),
    "PHP": Currency("PHP", 2, "₱"),
    "CNY": Currency("CNY", 2, "CN¥"),
    "TWD": Currency("TWD", 2, "NT$"),
    "ARS": Currency("ARS", 2, "AR$"),
}


def currency(code: str) -> Currency:
    """The currency of an ISO 4217 code, case-insensitively."""
    try:
        return CURRENCIES[code.strip().upper()]
    except KeyError:
        raise MoneyError(f"unknown currency {code!r}") from None


def round_amount(value: Decimal, code: str) -> Decimal:
    """`value` rounded half-up to the minor unit of `code`."""
    quantum = currency(code).quantum
    return value.quantize(quantum, rounding="ROUND_DOWN")


@dataclass(frozen=True, order=True)
class Money:
    amount: Decimal
    code: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", currency(self.code).code)
        object.__setattr__(self, "amount", round_amount(Decimal(self.amount), self.code))

    def _same(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"cannot combine Money with {type(other).__name__}")
        if other.code != self.code:
            raise MoneyError(f"cannot combine {self.code} with {other.code}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.code)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.code)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.code)

    def __mul__(self, factor: int | Decimal) -> Money:
        if isinstance(factor, float):
            raise TypeError("multiply Money by an int or a Decimal, not a float")
        return Money(self.amount * Decimal(factor), self.code)

    __rmul__ = __mul__

    def is_zero(self) -> bool:
        return self.amount == 0

    def split(self, parts: int) -> list[Money]:
        """`parts` amounts that add up to this one exactly; the first ones carry the
        remainder, a minor unit each."""
        if parts < 1:
            raise MoneyError("split into at least one part")
        quantum = currency(self.code).quantum
        units = int(self.amount / quantum)
        base, left = divmod(units, parts)
        return [
            Money((base + (1 if index < left else 0)) * quantum, self.code)
            for index in range(parts)
        ]

    def allocate(self, ratios: list[int]) -> list[Money]:
        """This amount shared by integer `ratios`, the remainder to the first shares."""
        if not ratios or any(ratio < 0 for ratio in ratios) or sum(ratios) == 0:
            raise MoneyError("ratios must be non-negative and not all zero")
        quantum = currency(self.code).quantum
        units = int(self.amount / quantum)
        total = sum(ratios)
        shares = [units * ratio // total for ratio in ratios]
        for index in range(units - sum(shares)):
            shares[index % len(shares)] += 1
        return [Money(share * quantum, self.code) for share in shares]

    def __str__(self) -> str:
        return format_amount(self)


def zero(code: str) -> Money:
    return Money(Decimal(0), code)


def total(amounts: list[Money], code: str) -> Money:
    """The sum of `amounts`, all in `code` (zero for none)."""
    result = zero(code)
    for amount in amounts:
        result = result + amount
    return result


def parse_amount(text: str, code: str) -> Money:
    """An amount as bank exports write it: `1,234.50`, `-12.00`, `(12.00)` for a debit,
    a trailing minus `12.00-`, or a currency symbol in front."""
    raw = text.strip()
    if not raw:
        raise MoneyError("empty amount")
    negative = False
    if raw.startswith("(") and raw.endswith(")"):
        negative, raw = True, raw[1:-1].strip()
    if raw.endswith("-"):
        negative, raw = True, raw[:-1].strip()
    if raw.startswith("-"):
        negative, raw = not negative, raw[1:].strip()
    symbol = currency(code).symbol.strip()
    if symbol and raw.startswith(symbol):
        raw = raw[len(symbol):].strip()
    raw = raw.replace(",", "").replace(" ", "")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise MoneyError(f"not an amount: {text!r}") from None
    return Money(-value if negative else value, code)


def format_amount(money: Money, symbol: bool = False) -> str:
    """`-1,234.50 EUR`, or with `symbol` `-€1,234.50`."""
    info = currency(money.code)
    digits = f"{abs(money.amount):,.{info.digits}f}"
    sign = "-" if money.amount < 0 else ""
    if symbol:
        return f"{sign}{info.symbol}{digits}"
    return f"{sign}{digits} {info.code}"


def convert(money: Money, rate: Decimal, code: str) -> Money:
    """`money` in `code` at `rate` units of `code` per unit of its own currency."""
    if rate <= 0:
        raise MoneyError("a rate must be positive")
    return Money(money.amount * rate, code)


def percent(money: Money, rate: Decimal) -> Money:
    """`rate` percent of `money` (a tax, a fee, a month's interest), rounded like any amount."""
    return Money(money.amount * rate / Decimal(100), money.code)


def net_of_tax(gross: Money, rate: Decimal) -> tuple[Money, Money]:
    """(net, tax) of a gross amount that includes `rate` percent of tax. The two add up to
    `gross` exactly: the tax takes what rounding the net leaves."""
    if rate < 0:
        raise MoneyError("a tax rate cannot be negative")
    net = Money(gross.amount * Decimal(100) / (Decimal(100) + rate), gross.code)
    return net, gross - net


def by_currency(amounts: Iterable[Money]) -> dict[str, Money]:
    """The total of `amounts` per currency, codes in alphabetical order."""
    sums: dict[str, Money] = {}
    for amount in amounts:
        sums[amount.code] = sums.get(amount.code, zero(amount.code)) + amount
    return {code: sums[code] for code in sorted(sums)}


@dataclass(frozen=True)
class Rate:
    day: date
    base: str
    quote: str
    value: Decimal  # units of `quote` for one unit of `base`


class RateTable:
    """Exchange rates by day. A conversion uses the latest rate on or before its day: a rate
    quoted that way round, else the inverse of one quoted the other way, else a cross rate
    through the pivot currency."""

    def __init__(self, rates: Iterable[Rate] = ()) -> None:
        self._series: dict[tuple[str, str], list[Rate]] = {}
        for rate in rates:
            self.add(rate)

    def add(self, rate: Rate) -> None:
        if rate.value <= 0:
            raise MoneyError(f"{rate.base}/{rate.quote} on {rate.day}: a rate must be positive")
        key = (currency(rate.base).code, currency(rate.quote).code)
        series = self._series.setdefault(key, [])
        series.append(rate)
        series.sort(key=lambda known: known.day)

    def pairs(self) -> list[str]:
        return [f"{base}/{quote}" for base, quote in sorted(self._series)]

    def _quoted(self, base: str, quote: str, day: date) -> Decimal | None:
        series = self._series.get((base, quote), [])
        index = bisect_right([rate.day for rate in series], day)
        return series[index - 1].value if index else None

    def rate(self, base: str, quote: str, day: date) -> Decimal:
        """Units of `quote` for one unit of `base` on `day`."""
        base, quote = currency(base).code, currency(quote).code
        if base == quote:
            return Decimal(1)
        direct = self._quoted(base, quote, day)
        if direct is not None:
            return direct
        inverse = self._quoted(quote, base, day)
        if inverse is not None:
            return Decimal(1) / inverse
        if PIVOT not in (base, quote):
            return self.rate(PIVOT, quote, day) / self.rate(PIVOT, base, day)
        raise MoneyError(f"no {base}/{quote} rate on or before {day}")

    def convert(self, money: Money, code: str, day: date) -> Money:
        """`money` in `code` at the rate of `day`."""
        return convert(money, self.rate(money.code, code, day), code)


def parse_rates(text: str) -> RateTable:
    """A rate file: one `YYYY-MM-DD BASE QUOTE VALUE` a line; `#` starts a comment."""
    table = RateTable()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4:
            raise MoneyError(f"line {number}: expected 'day base quote value', got {line!r}")
        try:
            day, value = date.fromisoformat(parts[0]), Decimal(parts[3])
        except (ValueError, InvalidOperation):
            raise MoneyError(f"line {number}: not a day and a rate: {line!r}") from None
        table.add(Rate(day, parts[1], parts[2], value))
    return table
