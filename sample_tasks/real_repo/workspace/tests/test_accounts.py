from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import (
    Ledger,
    LedgerError,
    Posting,
    Transaction,
    net_worth,
    opening_balance,
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
