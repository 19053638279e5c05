from datetime import date
from decimal import Decimal

import pytest

from ledger.money import (
    CURRENCIES,
    Money,
    MoneyError,
    Rate,
    RateTable,
    by_currency,
    convert,
    currency,
    format_amount,
    net_of_tax,
    parse_amount,
    parse_rates,
    percent,
    round_amount,
    total,
    zero,
)

RATES = """# ECB reference rates
2024-03-01 EUR USD 1.0830
2024-03-04 EUR USD 1.0855
2024-03-01 EUR GBP 0.8556
2024-03-01 JPY EUR 0.006151
"""


def test_every_currency_has_a_code_of_three_letters() -> None:
    for code, info in CURRENCIES.items():
        assert code == info.code and len(code) == 3 and code.isupper()


def test_currency_lookup_ignores_case_and_spaces() -> None:
    assert currency(" eur ").code == "EUR"


def test_unknown_currency_is_refused() -> None:
    with pytest.raises(MoneyError, match="unknown currency"):
        currency("XXX")


@pytest.mark.parametrize(
    ("value", "code", "expected"),
    [
        ("2.675", "EUR", "2.68"),
        ("2.665", "EUR", "2.67"),
        ("0.125", "USD", "0.13"),
        ("-0.125", "USD", "-0.13"),
        ("1234.5", "JPY", "1235"),
        ("0.0005", "KWD", "0.001"),
        ("10", "EUR", "10.00"),
    ],
)
def test_round_amount_rounds_half_up_to_the_minor_unit(value: str, code: str, expected: str) -> None:
    assert round_amount(Decimal(value), code) == Decimal(expected)


def test_money_is_quantized_on_creation() -> None:
    assert Money(Decimal("19.999"), "EUR").amount == Decimal("20.00")


def test_adding_two_currencies_is_an_error() -> None:
    with pytest.raises(MoneyError, match="cannot combine EUR with USD"):
        Money(Decimal(1), "EUR") + Money(Decimal(1), "USD")


def test_multiplying_by_a_float_is_refused() -> None:
    with pytest.raises(TypeError):
        Money(Decimal(1), "EUR") * 1.5  # type: ignore[operator]


def test_split_adds_up_exactly() -> None:
    parts = Money(Decimal("10.00"), "EUR").split(3)
    assert [p.amount for p in parts] == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]
    assert total(parts, "EUR") == Money(Decimal("10.00"), "EUR")


def test_allocate_by_ratios() -> None:
    shares = Money(Decimal("100.00"), "EUR").allocate([1, 1, 1])
    assert sum(s.amount for s in shares) == Decimal("100.00")
    assert shares[0].amount == Decimal("33.34")


def test_allocate_refuses_all_zero_ratios() -> None:
    with pytest.raises(MoneyError):
        Money(Decimal("1.00"), "EUR").allocate([0, 0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,234.50", "1234.50"),
        ("-12.00", "-12.00"),
        ("(12.00)", "-12.00"),
        ("12.00-", "-12.00"),
        ("€ 7.10", "7.10"),
        ("  3  ", "3.00"),
    ],
)
def test_parse_amount_reads_bank_notations(text: str, expected: str) -> None:
    assert parse_amount(text, "EUR").amount == Decimal(expected)


def test_parse_amount_refuses_words() -> None:
    with pytest.raises(MoneyError, match="not an amount"):
        parse_amount("twelve", "EUR")


def test_format_amount_with_and_without_symbol() -> None:
    money = Money(Decimal("-1234.5"), "EUR")
    assert format_amount(money) == "-1,234.50 EUR"
    assert format_amount(money, symbol=True) == "-€1,234.50"


def test_convert_rounds_in_the_target_currency() -> None:
    assert convert(Money(Decimal("10.00"), "EUR"), Decimal("1.08335"), "USD").amount == Decimal(
        "10.83"
    )


def test_zero_is_zero() -> None:
    assert zero("JPY").is_zero()


def test_percent_rounds_like_any_amount() -> None:
    assert percent(Money(Decimal("19.99"), "EUR"), Decimal(19)).amount == Decimal("3.80")
    assert percent(Money(Decimal("250.00"), "EUR"), Decimal("0.5")).amount == Decimal("1.25")


def test_net_and_tax_add_up_to_the_gross_amount() -> None:
    gross = Money(Decimal("119.00"), "EUR")
    net, tax = net_of_tax(gross, Decimal(19))
    assert (net.amount, tax.amount) == (Decimal("100.00"), Decimal("19.00"))
    net, tax = net_of_tax(Money(Decimal("10.00"), "EUR"), Decimal(7))
    assert net.amount == Decimal("9.35") and net + tax == Money(Decimal("10.00"), "EUR")


def test_a_negative_tax_rate_is_refused() -> None:
    with pytest.raises(MoneyError, match="negative"):
        net_of_tax(Money(Decimal("1.00"), "EUR"), Decimal(-1))


def test_by_currency_sums_each_code_apart() -> None:
    sums = by_currency([
        Money(Decimal("1.50"), "USD"), Money(Decimal("2.25"), "EUR"), Money(Decimal("1"), "USD"),
    ])
    assert list(sums) == ["EUR", "USD"]
    assert sums["USD"] == Money(Decimal("2.50"), "USD")


def test_a_rate_holds_until_the_next_one() -> None:
    table = parse_rates(RATES)
    assert table.rate("EUR", "USD", date(2024, 3, 3)) == Decimal("1.0830")
    assert table.rate("EUR", "USD", date(2024, 3, 4)) == Decimal("1.0855")


def test_no_rate_before_the_first_one() -> None:
    with pytest.raises(MoneyError, match="no EUR/USD rate"):
        parse_rates(RATES).rate("EUR", "USD", date(2024, 2, 29))


def test_converting_with_the_inverse_and_a_cross_rate() -> None:
    table = parse_rates(RATES)
    day = date(2024, 3, 1)
    assert table.convert(Money(Decimal("108.30"), "USD"), "EUR", day).amount == Decimal("100.00")
    assert table.convert(Money(Decimal("100.00"), "GBP"), "USD", day).amount == Decimal("126.58")
    assert table.convert(Money(Decimal("10000"), "JPY"), "EUR", day).amount == Decimal("61.51")


def test_a_rate_file_line_must_have_four_fields() -> None:
    with pytest.raises(MoneyError, match="line 2"):
        parse_rates("2024-03-01 EUR USD 1.08\n2024-03-02 EUR USD\n")


def test_rates_must_be_positive() -> None:
    with pytest.raises(MoneyError, match="positive"):
        RateTable([Rate(date(2024, 3, 1), "EUR", "USD", Decimal(0))])
    assert RateTable([Rate(date(2024, 3, 1), "eur", "usd", Decimal(1))]).pairs() == ["EUR/USD"]
