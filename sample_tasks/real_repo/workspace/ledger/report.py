"""Reports over a ledger: monthly totals per account, and the text tables they print as."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from ledger.accounts import DEBIT_NORMAL, Ledger
from ledger.money import Money, format_amount, zero

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class MonthKey:
    year: int
    month: int

    @classmethod
    def of(cls, day: date) -> MonthKey:
        return cls(day.year, day.month)

    def label(self) -> str:
        return f"{MONTHS[self.month - 1]} {self.year}"

    def sort_key(self) -> tuple[int, int]:
        return (self.month, self.year)


def monthly(ledger: Ledger, prefix: str) -> dict[MonthKey, dict[str, Money]]:
    """Per month, in calendar order, the movement of each account whose name starts with
    `prefix`, on the account's normal side."""
    table: dict[MonthKey, dict[str, Money]] = defaultdict(dict)
    for transaction in ledger.transactions:
        key = MonthKey.of(transaction.day)
        for posting in transaction.postings:
            if not posting.account.startswith(prefix):
                continue
            account = ledger.account(posting.account)
            amount = posting.amount if DEBIT_NORMAL[account.kind] else -posting.amount
            row = table[key]
            row[posting.account] = row.get(posting.account, zero(account.code)) + amount
    return {key: table[key] for key in sorted(table, key=MonthKey.sort_key)}


def totals(table: dict[MonthKey, dict[str, Money]], code: str) -> dict[MonthKey, Money]:
    """Each month's total over its accounts (all kept in `code`)."""
    result = {}
    for key, row in table.items():
        month_total = zero(code)
        for amount in row.values():
            month_total = month_total + amount
        result[key] = month_total
    return result


def average(table: dict[MonthKey, dict[str, Money]], account: str, code: str) -> Money:
    """The account's mean movement over the months of `table` (months without it count as
    zero), rounded to the minor unit."""
    if not table:
        return zero(code)
    amounts = [row.get(account, zero(code)) for row in table.values()]
    result = zero(code)
    for amount in amounts:
        result = result + amount
    return Money(result.amount / len(amounts), code)


def render(table: dict[MonthKey, dict[str, Money]]) -> str:
    """A text table: a row per account, a column per month, amounts right-aligned."""
    if not table:
        return "(no movements)"
    months = list(table)
    accounts = sorted({name for row in table.values() for name in row})
    width = max(len(name) for name in accounts)
    cells = {
        (name, key): format_amount(row[name]) if name in row else "-"
        for key, row in table.items()
        for name in accounts
    }
    column = max(max(len(cell) for cell in cells.values()), *(len(m.label()) for m in months))
    lines = [" " * width + "  " + "  ".join(m.label().rjust(column) for m in months)]
    for name in accounts:
        row = "  ".join(cells[(name, key)].rjust(column) for key in months)
        lines.append(f"{name.ljust(width)}  {row}")
    return "\n".join(lines)


def top_expenses(ledger: Ledger, code: str, count: int = 5) -> list[tuple[str, Money]]:
    """The `count` expense accounts that moved the most, largest first."""
    sums: dict[str, Money] = {}
    for name, account in ledger.accounts.items():
        if account.kind == "expense" and account.code == code:
            sums[name] = ledger.balance(name)
    ranked = sorted(sums.items(), key=lambda item: item[1].amount, reverse=True)
    return ranked[:count]


def savings_rate(ledger: Ledger, code: str) -> float | None:
    """Income less expenses, as a share of income (None without income)."""
    income = zero(code)
    expenses = zero(code)
    for name, account in ledger.accounts.items():
        if account.code != code:
            continue
        if account.kind == "income":
            income = income + ledger.balance(name)
        elif account.kind == "expense":
            expenses = expenses + ledger.balance(name)
    if income.is_zero():
        return None
    return float((income.amount - expenses.amount) / income.amount)
