from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import Ledger, Posting, Transaction
from ledger.money import Money
from ledger.report import MonthKey, average, monthly, render, savings_rate, top_expenses, totals


def eur(value: str) -> Money:
    return Money(Decimal(value), "EUR")


@pytest.fixture
def ledger() -> Ledger:
    book = Ledger()
    book.open("Assets:Bank", "asset")
    book.open("Expenses:Food", "expense")
    book.open("Expenses:Rent", "expense")
    book.open("Income:Salary", "income")
    months = [(2023, 12), (2024, 1), (2024, 2)]
    for year, month in months:
        day = date(year, month, 1)
        book.post(Transaction(day, "salary", (
            Posting("Assets:Bank", eur("2000")), Posting("Income:Salary", eur("-2000")),
        )))
        book.post(Transaction(day, "rent", (
            Posting("Expenses:Rent", eur("800")), Posting("Assets:Bank", eur("-800")),
        )))
        book.post(Transaction(day, "food", (
            Posting("Expenses:Food", eur(str(100 * month))), Posting("Assets:Bank", eur(str(-100 * month))),
        )))
    return book


def test_months_come_in_calendar_order(ledger: Ledger) -> None:
    table = monthly(ledger, "Expenses:")
    assert [key.label() for key in table] == ["Dec 2023", "Jan 2024", "Feb 2024"]


def test_monthly_totals(ledger: Ledger) -> None:
    table = monthly(ledger, "Expenses:")
    assert totals(table, "EUR")[MonthKey(2024, 2)] == eur("1000")


def test_average_counts_missing_months_as_zero(ledger: Ledger) -> None:
    table = monthly(ledger, "Expenses:")
    assert average(table, "Expenses:Food", "EUR") == eur("500")


def test_render_has_a_row_per_account(ledger: Ledger) -> None:
    text = render(monthly(ledger, "Expenses:"))
    lines = text.splitlines()
    assert len(lines) == 3 and lines[1].startswith("Expenses:Food")
    assert "1,200.00 EUR" in lines[1]


def test_top_expenses_largest_first(ledger: Ledger) -> None:
    assert [name for name, _ in top_expenses(ledger, "EUR")] == ["Expenses:Rent", "Expenses:Food"]


def test_savings_rate_is_a_share_of_income(ledger: Ledger) -> None:
    rate = savings_rate(ledger, "EUR")
    assert rate is not None and abs(rate - (6000 - 2400 - 1500) / 6000) < 1e-9
