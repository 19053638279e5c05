from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import Ledger
from ledger.importer import (
    ImportError_,
    categorize,
    deduplicate,
    detect,
    import_statement,
    load_rules,
    merge_statements,
    read_statement,
    rows_by_month,
    rule_suggestions,
    statement_total,
    summarize,
    to_transaction,
)
from ledger.money import Money

NORTH = """Date,Description,Amount,Currency
01/03/2024,Salary March,2500.00,EUR
02/03/2024,Supermarket  Centre,-54.20,EUR
03/03/2024,Train ticket,-12.00,EUR
05/03/2024,Rent March,-900.00,EUR
"""

SOUTH = """Booking date;Text;Debit;Credit;Currency
2024-03-01;Salary;;2500.00;EUR
2024-03-04;Pharmacy;23.10;;EUR
"""

EAST = """date|memo|amount|ccy
03/01/2024|Coffee beans|12.40-|USD
03/02/2024|Refund|5.00|USD
"""

RULES = """# words are matched in lower case
coffee = Expenses:Coffee
refund = Income:Refunds
"""

WEST = "Valuta\tVerwendungszweck\tBetrag\tWaehrung\n04.03.2024\tBakery\t-1.234,50\tEUR\n"


def test_detect_by_header() -> None:
    assert detect("Date,Description,Amount,Currency").name == "northbank"
    assert detect("date|memo|amount|ccy\n").name == "eastbank"


def test_unknown_header_is_an_error() -> None:
    with pytest.raises(ImportError_, match="unknown statement header"):
        detect("when,what,how much")


def test_every_line_of_a_statement_is_read() -> None:
    rows = read_statement(NORTH)
    assert [row.text for row in rows] == [
        "Salary March", "Supermarket Centre", "Train ticket", "Rent March",
    ]
    assert rows[-1].line == 5 and rows[-1].day == date(2024, 3, 5)


def test_southbank_debits_are_negative() -> None:
    rows = read_statement(SOUTH)
    assert [row.amount.amount for row in rows] == [Decimal("2500.00"), Decimal("-23.10")]


def test_westbank_decimal_commas() -> None:
    (row,) = read_statement(WEST)
    assert row.amount.amount == Decimal("-1234.50") and row.day == date(2024, 3, 4)


def test_a_bad_line_names_its_number() -> None:
    with pytest.raises(ImportError_, match="line 3"):
        read_statement(NORTH.replace("-54.20", "lots"))


def test_duplicates_are_dropped() -> None:
    rows = read_statement(NORTH + "03/03/2024,Train ticket,-12.00,EUR\n")
    assert len(deduplicate(rows)) == 4


def test_categories_by_rule() -> None:
    rows = read_statement(NORTH)
    assert [categorize(row) for row in rows] == [
        "Income:Salary", "Expenses:Groceries", "Expenses:Transport", "Expenses:Housing",
    ]


def test_summary_counts_each_category() -> None:
    assert summarize(read_statement(SOUTH)) == {"Income:Salary": 1, "Expenses:Health": 1}


def test_eastbank_trailing_minus() -> None:
    rows = read_statement(EAST)
    assert [row.amount for row in rows] == [
        Money(Decimal("-12.40"), "USD"), Money(Decimal("5.00"), "USD"),
    ]


def test_rules_file_is_read_in_order() -> None:
    assert load_rules(RULES) == [("coffee", "Expenses:Coffee"), ("refund", "Income:Refunds")]


def test_a_rule_without_an_account_names_its_line() -> None:
    with pytest.raises(ImportError_, match="rules line 2"):
        load_rules("rent = Expenses:Housing\ncoffee\n")


def test_statement_total_is_the_balance_change() -> None:
    total = statement_total(read_statement(NORTH))
    assert total == {"EUR": Money(Decimal("1533.80"), "EUR")}


def test_a_row_becomes_a_balanced_transaction() -> None:
    (row,) = read_statement(WEST)
    transaction = to_transaction(row, "Assets:Bank")
    assert transaction.is_balanced() and transaction.tags == ("line:2",)
    assert transaction.postings[1].account == "Expenses:Groceries"


def test_import_posts_every_row_and_opens_categories() -> None:
    book = Ledger()
    book.open("Assets:Bank", "asset")
    report = import_statement(book, NORTH + "03/03/2024,Train ticket,-12.00,EUR\n", "Assets:Bank")
    assert (report.read, report.duplicates, report.posted) == (5, 1, 4)
    assert "Expenses:Housing" in report.opened
    assert book.balance("Assets:Bank") == Money(Decimal("1533.80"), "EUR")


def test_import_with_rules_and_unsorted_rows() -> None:
    book = Ledger()
    book.open("Assets:Checking", "asset", "USD")
    report = import_statement(book, EAST + "03/05/2024|Bookshop|20.00-|USD\n", "Assets:Checking",
                              load_rules(RULES))
    assert report.unsorted == ["Bookshop"]
    assert book.balance("Expenses:Coffee") == Money(Decimal("12.40"), "USD")


def test_import_refuses_a_foreign_currency_before_posting() -> None:
    book = Ledger()
    book.open("Assets:Bank", "asset")
    with pytest.raises(ImportError_, match="USD amount for a EUR account"):
        import_statement(book, EAST, "Assets:Bank")
    assert book.transactions == []


def test_merged_exports_keep_each_overlapping_row_once() -> None:
    april = """Date,Description,Amount,Currency
05/03/2024,Rent March,-900.00,EUR
01/04/2024,Salary April,2500.00,EUR
"""
    rows = merge_statements([april, NORTH])
    assert [row.text for row in rows] == [
        "Salary March", "Supermarket Centre", "Train ticket", "Rent March", "Salary April",
    ]


def test_rows_by_month_in_calendar_order() -> None:
    rows = read_statement(NORTH) + read_statement(WEST)
    months = rows_by_month(rows)
    assert list(months) == [(2024, 3)] and len(months[(2024, 3)]) == 5


def test_rule_suggestions_from_unsorted_rows() -> None:
    text = EAST + "03/05/2024|Bookshop Central|20.00-|USD\n03/09/2024|Bookshop|8.00-|USD\n"
    suggestions = rule_suggestions(read_statement(text), load_rules(RULES))
    assert suggestions == [("bookshop", 2), ("central", 1)]
