from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import (
    Ledger,
    LedgerError,
    Posting,
    Transaction,
    accounts_of,
    close_year,
    income_statement,
    net_worth,
    opening_balance,
    reconcile,
)
from ledger.money import Money

D = date(2024, 3, 1)


def eur(value: str) -> Money:
    return Money(Decimal(value), "EUR")


@pytest.fixture
def ledger() -> Ledger:
    book = Ledger()
    book.open("Assets:Bank", "asset")
    book.open("Assets:Cash", "asset")
    book.open("Liabilities:Card", "liability")
    book.open("Expenses:Food", "expense")
    book.open("Expenses:Rent", "expense")
    book.open("Income:Salary", "income")
    return book


def test_an_account_name_needs_a_kind_prefix() -> None:
    with pytest.raises(LedgerError, match="Kind:Name"):
        Ledger().open("Bank", "asset")


def test_unbalanced_transactions_are_refused(ledger: Ledger) -> None:
    postings = (Posting("Assets:Bank", eur("10")), Posting("Income:Salary", eur("-9")))
    with pytest.raises(LedgerError, match="do not balance"):
        ledger.post(Transaction(D, "salary", postings))


def test_salary_raises_bank_and_income(ledger: Ledger) -> None:
    postings = (Posting("Assets:Bank", eur("2500")), Posting("Income:Salary", eur("-2500")))
    ledger.post(Transaction(D, "salary", postings))
    assert ledger.balance("Assets:Bank") == eur("2500")
    assert ledger.balance("Income:Salary") == eur("2500")


def test_transfer_moves_money_from_source_to_target(ledger: Ledger) -> None:
    opening_balance(ledger, D, "Assets:Bank", eur("100"))
    ledger.transfer(D, "Assets:Bank", "Assets:Cash", eur("40"))
    assert ledger.balance("Assets:Bank") == eur("60")
    assert ledger.balance("Assets:Cash") == eur("40")


def test_paying_a_card_lowers_the_liability(ledger: Ledger) -> None:
    opening_balance(ledger, D, "Assets:Bank", eur("500"))
    opening_balance(ledger, D, "Liabilities:Card", eur("200"))
    ledger.transfer(D, "Assets:Bank", "Liabilities:Card", eur("150"))
    assert ledger.balance("Liabilities:Card") == eur("50")
    assert net_worth(ledger, "EUR") == eur("300")


def test_a_transfer_must_be_positive(ledger: Ledger) -> None:
    with pytest.raises(LedgerError, match="positive"):
        ledger.transfer(D, "Assets:Bank", "Assets:Cash", eur("0"))


def test_closed_periods_refuse_postings(ledger: Ledger) -> None:
    ledger.close(date(2024, 3, 31))
    with pytest.raises(LedgerError, match="closed period"):
        opening_balance(ledger, D, "Assets:Bank", eur("1"))


def test_a_period_cannot_be_reopened(ledger: Ledger) -> None:
    ledger.close(date(2024, 3, 31))
    with pytest.raises(LedgerError, match="reopened"):
        ledger.close(date(2024, 2, 1))


def test_history_has_a_running_balance(ledger: Ledger) -> None:
    opening_balance(ledger, D, "Assets:Bank", eur("100"))
    postings = (Posting("Expenses:Food", eur("30")), Posting("Assets:Bank", eur("-30")))
    ledger.post(Transaction(date(2024, 3, 2), "groceries", postings))
    rows = ledger.history("Assets:Bank")
    assert [row[3] for row in rows] == [eur("100"), eur("70")]


def test_split_expense_shares_the_payment(ledger: Ledger) -> None:
    opening_balance(ledger, D, "Assets:Bank", eur("100"))
    ledger.split_expense(D, "Assets:Bank", ["Expenses:Food", "Expenses:Rent"], eur("10.01"), "x")
    assert ledger.balance("Expenses:Food") == eur("5.01")
    assert ledger.balance("Expenses:Rent") == eur("5.00")


def test_trial_balance_is_zero(ledger: Ledger) -> None:
    opening_balance(ledger, D, "Assets:Bank", eur("100"))
    ledger.transfer(D, "Assets:Bank", "Assets:Cash", eur("40"))
    assert all(amount.is_zero() for amount in ledger.trial_balance().values())


def test_posting_in_the_wrong_currency_is_refused(ledger: Ledger) -> None:
    usd = Money(Decimal("5"), "USD")
    postings = (Posting("Assets:Bank", usd), Posting("Income:Salary", -usd))
    with pytest.raises(LedgerError, match="kept in EUR"):
        ledger.post(Transaction(D, "usd", postings))


def _salary_and_rent(ledger: Ledger) -> None:
    for month in (1, 2, 3):
        day = date(2024, month, 1)
        ledger.post(Transaction(day, "salary", (
            Posting("Assets:Bank", eur("2500")), Posting("Income:Salary", eur("-2500")),
        )))
        ledger.post(Transaction(day, "rent", (
            Posting("Expenses:Rent", eur("900")), Posting("Assets:Bank", eur("-900")),
        )))


def test_reversing_a_transaction_undoes_it(ledger: Ledger) -> None:
    _salary_and_rent(ledger)
    ledger.reverse(ledger.transactions[-1], date(2024, 3, 2))
    assert ledger.balance("Expenses:Rent") == eur("1800")
    assert ledger.tagged("reversal")[0].description == "reversal of rent"


def test_only_a_posted_transaction_can_be_reversed(ledger: Ledger) -> None:
    stray = Transaction(D, "stray", (
        Posting("Assets:Bank", eur("1")), Posting("Income:Salary", eur("-1")),
    ))
    with pytest.raises(LedgerError, match="not in this ledger"):
        ledger.reverse(stray, D)


def test_between_includes_both_ends(ledger: Ledger) -> None:
    _salary_and_rent(ledger)
    chosen = ledger.between(date(2024, 2, 1), date(2024, 3, 1))
    assert [t.day.month for t in chosen] == [2, 2, 3, 3]


def test_income_statement_nets_income_against_expenses(ledger: Ledger) -> None:
    _salary_and_rent(ledger)
    statement = income_statement(ledger, date(2024, 1, 1), date(2024, 2, 29), "EUR")
    assert statement == {
        "Expenses:Rent": eur("1800"), "Income:Salary": eur("5000"), "net": eur("3200"),
    }


def test_closing_a_year_moves_the_result_to_equity(ledger: Ledger) -> None:
    _salary_and_rent(ledger)
    closing = close_year(ledger, 2024)
    assert closing is not None and closing.is_balanced()
    assert ledger.balance("Income:Salary") == eur("0")
    assert ledger.balance("Expenses:Rent") == eur("0")
    assert ledger.balance("Equity:Retained") == eur("4800")
    with pytest.raises(LedgerError, match="closed period"):
        opening_balance(ledger, date(2024, 6, 1), "Assets:Cash", eur("1"))


def test_closing_a_quiet_year_posts_nothing(ledger: Ledger) -> None:
    assert close_year(ledger, 2023) is None
    assert ledger.closed_until == date(2023, 12, 31)


def test_reconcile_shows_what_the_books_miss(ledger: Ledger) -> None:
    opening_balance(ledger, D, "Assets:Bank", eur("100"))
    ledger.transfer(D, "Assets:Bank", "Assets:Cash", eur("30"))
    assert reconcile(ledger, "Assets:Bank", eur("70"), D) == eur("0")
    assert reconcile(ledger, "Assets:Bank", eur("65.50"), D) == eur("-4.50")


def test_accounts_of_a_kind_by_name(ledger: Ledger) -> None:
    assert [a.name for a in accounts_of(ledger, "asset")] == ["Assets:Bank", "Assets:Cash"]
    with pytest.raises(LedgerError, match="unknown account kind"):
        accounts_of(ledger, "savings")
