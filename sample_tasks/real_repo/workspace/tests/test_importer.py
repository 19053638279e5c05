from datetime import date
from decimal import Decimal

import pytest

from ledger.importer import ImportError_, categorize, deduplicate, detect, read_statement, summarize

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
