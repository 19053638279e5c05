from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import Ledger, Posting, Transaction
from ledger.money import Money
from ledger.report import (
    MonthKey,
    average,
    budget_lines,
    cash_flow,
    changes,
    month_range,
    monthly,
    quarterly,
    render,
    render_csv,
    render_markdown,
    savings_rate,
    shares,
    top_expenses,
    totals,
    with_empty_months,
    yearly,
)


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


def test_month_range_crosses_the_year() -> None:
    months = month_range(MonthKey(2023, 11), MonthKey(2024, 2))
    assert [key.label() for key in months] == ["Nov 2023", "Dec 2023", "Jan 2024", "Feb 2024"]


def test_quiet_months_get_an_empty_row(ledger: Ledger) -> None:
    ledger.post(Transaction(date(2024, 5, 1), "food", (
        Posting("Expenses:Food", eur("50")), Posting("Assets:Bank", eur("-50")),
    )))
    table = with_empty_months(monthly(ledger, "Expenses:"))
    assert [key.label() for key in table][-3:] == ["Mar 2024", "Apr 2024", "May 2024"]
    assert table[MonthKey(2024, 3)] == {}


def test_quarters_sum_their_months(ledger: Ledger) -> None:
    table = quarterly(monthly(ledger, "Expenses:"))
    assert list(table) == ["Q4 2023", "Q1 2024"]
    assert table["Q1 2024"]["Expenses:Rent"] == eur("1600")


def test_budget_lines_flag_overspending(ledger: Ledger) -> None:
    lines = budget_lines(monthly(ledger, "Expenses:"), {"Expenses:Food": eur("150")})
    assert [(line.month.label(), line.over) for line in lines] == [
        ("Dec 2023", True), ("Jan 2024", False), ("Feb 2024", True),
    ]
    assert lines[1].left == eur("50")


def test_csv_has_a_column_per_month(ledger: Ledger) -> None:
    text = render_csv(monthly(ledger, "Expenses:"))
    assert text.splitlines()[0] == "account,Dec 2023,Jan 2024,Feb 2024"
    assert text.splitlines()[1] == "Expenses:Food,1200.00,100.00,200.00"


def test_cash_flow_in_and_out_of_the_bank(ledger: Ledger) -> None:
    flows = cash_flow(ledger, "Assets:Bank")
    assert list(flows)[0] == MonthKey(2023, 12)
    assert flows[MonthKey(2024, 2)] == (eur("2000"), eur("1000"))


def test_changes_month_over_month(ledger: Ledger) -> None:
    table = monthly(ledger, "Expenses:")
    assert [change for _, change in changes(table, "Expenses:Food", "EUR")] == [
        eur("1200"), eur("-1100"), eur("100"),
    ]


def test_years_sum_their_months(ledger: Ledger) -> None:
    table = yearly(monthly(ledger, "Expenses:"))
    assert list(table) == [2023, 2024]
    assert table[2024] == {"Expenses:Food": eur("300"), "Expenses:Rent": eur("1600")}


def test_shares_of_spending_largest_first(ledger: Ledger) -> None:
    parts = shares(monthly(ledger, "Expenses:"), "EUR")
    assert list(parts) == ["Expenses:Rent", "Expenses:Food"]
    assert abs(parts["Expenses:Food"] - 1500 / 3900) < 1e-9


def test_markdown_table_has_a_total_row(ledger: Ledger) -> None:
    lines = render_markdown(monthly(ledger, "Expenses:")).splitlines()
    assert lines[0] == "| account | Dec 2023 | Jan 2024 | Feb 2024 |"
    assert lines[-1] == "| total | 2,000.00 EUR | 900.00 EUR | 1,000.00 EUR |"
