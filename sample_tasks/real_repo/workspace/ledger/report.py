"""Reports over a ledger: monthly totals per account, and the text tables they print as."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

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


def cash_flow(ledger: Ledger, name: str) -> dict[MonthKey, tuple[Money, Money]]:
    """Per month, in calendar order, the money into and out of the account `name` (both
    positive), e.g. a bank account's deposits and payments."""
    account = ledger.account(name)
    flows: dict[MonthKey, tuple[Money, Money]] = {}
    for transaction in ledger.transactions:
        key = MonthKey.of(transaction.day)
        for posting in transaction.postings:
            if posting.account != name:
                continue
            money_in, money_out = flows.get(key, (zero(account.code), zero(account.code)))
            if posting.amount.amount >= 0:
                money_in = money_in + posting.amount
            else:
                money_out = money_out - posting.amount
            flows[key] = (money_in, money_out)
    return {key: flows[key] for key in sorted(flows, key=MonthKey.sort_key)}


def changes(
    table: dict[MonthKey, dict[str, Money]], account: str, code: str
) -> list[tuple[MonthKey, Money]]:
    """Each month's movement of `account` less the month before's (the first month against
    zero): where spending jumped."""
    result = []
    previous = zero(code)
    for key, row in table.items():
        amount = row.get(account, zero(code))
        result.append((key, amount - previous))
        previous = amount
    return result


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


def month_range(first: MonthKey, last: MonthKey) -> list[MonthKey]:
    """Every month from `first` to `last`, both included."""
    months = []
    key = first
    while key.sort_key() <= last.sort_key():
        months.append(key)
        year, month = divmod(key.year * 12 + key.month, 12)
        key = MonthKey(year, month + 1)
    return months


def with_empty_months(table: dict[MonthKey, dict[str, Money]]) -> dict[MonthKey, dict[str, Money]]:
    """`table` with a row for each month between its first and last that had no movement, so
    averages and charts see the quiet months too."""
    if not table:
        return {}
    keys = sorted(table, key=MonthKey.sort_key)
    return {key: table.get(key, {}) for key in month_range(keys[0], keys[-1])}


def quarterly(table: dict[MonthKey, dict[str, Money]]) -> dict[str, dict[str, Money]]:
    """The monthly table summed by quarter, labelled `Q1 2024`, in the table's order."""
    quarters: dict[str, dict[str, Money]] = {}
    for key, row in table.items():
        label = f"Q{(key.month - 1) // 3 + 1} {key.year}"
        sums = quarters.setdefault(label, {})
        for name, amount in row.items():
            sums[name] = sums[name] + amount if name in sums else amount
    return quarters


def yearly(table: dict[MonthKey, dict[str, Money]]) -> dict[int, dict[str, Money]]:
    """The monthly table summed by calendar year, years in the table's order."""
    years: dict[int, dict[str, Money]] = {}
    for key, row in table.items():
        sums = years.setdefault(key.year, {})
        for name, amount in row.items():
            sums[name] = sums[name] + amount if name in sums else amount
    return years


def shares(table: dict[MonthKey, dict[str, Money]], code: str) -> dict[str, float]:
    """Each account's part of the table's total over all months, largest first: where the
    money went. Empty when the total is zero."""
    sums: dict[str, Money] = {}
    for row in table.values():
        for name, amount in row.items():
            sums[name] = sums.get(name, zero(code)) + amount
    whole = sum((amount.amount for amount in sums.values()), Decimal(0))
    if whole == 0:
        return {}
    ranked = sorted(sums.items(), key=lambda item: item[1].amount, reverse=True)
    return {name: float(amount.amount / whole) for name, amount in ranked}


@dataclass(frozen=True)
class BudgetLine:
    month: MonthKey
    account: str
    spent: Money
    budget: Money

    @property
    def left(self) -> Money:
        return self.budget - self.spent

    @property
    def over(self) -> bool:
        return self.spent.amount > self.budget.amount


def budget_lines(
    table: dict[MonthKey, dict[str, Money]], budgets: dict[str, Money]
) -> list[BudgetLine]:
    """Per month and budgeted account, what was spent against the budget (nothing spent
    counts as zero), months in table order, accounts by name."""
    lines = []
    for key, row in table.items():
        for account in sorted(budgets):
            budget = budgets[account]
            spent = row.get(account, zero(budget.code))
            lines.append(BudgetLine(key, account, spent, budget))
    return lines


def render_csv(table: dict[MonthKey, dict[str, Money]]) -> str:
    """The monthly table as CSV for a spreadsheet: a header of months, a line per account,
    plain decimal amounts (an empty cell for no movement)."""
    months = list(table)
    accounts = sorted({name for row in table.values() for name in row})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["account", *(key.label() for key in months)])
    for name in accounts:
        cells = [str(table[key][name].amount) if name in table[key] else "" for key in months]
        writer.writerow([name, *cells])
    return out.getvalue()


def render_markdown(table: dict[MonthKey, dict[str, Money]]) -> str:
    """The monthly table as a Markdown table for notes and issue comments: amounts
    right-aligned, `-` for no movement, a total row at the end."""
    months = list(table)
    accounts = sorted({name for row in table.values() for name in row})
    lines = [
        "| account | " + " | ".join(key.label() for key in months) + " |",
        "|---|" + "---:|" * len(months),
    ]
    for name in accounts:
        cells = [format_amount(table[key][name]) if name in table[key] else "-" for key in months]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    sums = []
    for key in months:
        row = list(table[key].values())
        sums.append(format_amount(total_of(row)) if row else "-")
    lines.append("| total | " + " | ".join(sums) + " |")
    return "\n".join(lines)


def total_of(amounts: list[Money]) -> Money:
    """The sum of amounts in one currency (at least one amount)."""
    result = amounts[0]
    for amount in amounts[1:]:
        result = result + amount
    return result
