"""Accounts and the ledger that posts balanced transactions between them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from ledger.money import Money, MoneyError, total, zero

KINDS = ("asset", "liability", "income", "expense", "equity")
# Which side increases an account of each kind: assets and expenses grow with debits.
DEBIT_NORMAL = {"asset": True, "expense": True, "liability": False, "income": False, "equity": False}


class LedgerError(ValueError):
    """A posting the ledger refuses: unknown accounts, unbalanced entries, closed periods."""


@dataclass(frozen=True)
class Account:
    name: str
    kind: str
    code: str  # the currency the account is kept in

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise LedgerError(f"{self.name}: unknown account kind {self.kind!r}")
        if ":" not in self.name and self.kind != "equity":
            raise LedgerError(f"{self.name}: an account name is Kind:Name, e.g. Assets:Bank")


@dataclass(frozen=True)
class Posting:
    account: str
    amount: Money  # positive: debit; negative: credit


@dataclass(frozen=True)
class Transaction:
    day: date
    description: str
    postings: tuple[Posting, ...]
    tags: tuple[str, ...] = ()

    def balance(self) -> dict[str, Money]:
        sums: dict[str, Money] = {}
        for posting in self.postings:
            code = posting.amount.code
            sums[code] = sums.get(code, zero(code)) + posting.amount
        return sums

    def is_balanced(self) -> bool:
        return all(amount.is_zero() for amount in self.balance().values())


@dataclass
class Ledger:
    accounts: dict[str, Account] = field(default_factory=dict)
    transactions: list[Transaction] = field(default_factory=list)
    closed_until: date | None = None

    def open(self, name: str, kind: str, code: str = "EUR") -> Account:
        if name in self.accounts:
            raise LedgerError(f"{name} is already open")
        account = Account(name, kind, code)
        self.accounts[name] = account
        return account

    def account(self, name: str) -> Account:
        try:
            return self.accounts[name]
        except KeyError:
            raise LedgerError(f"no account {name!r}") from None

    def post(self, transaction: Transaction) -> Transaction:
        """Record `transaction` once it is balanced in every currency, names open accounts
        in their own currency, and falls after the closed period."""
        if len(transaction.postings) < 2:
            raise LedgerError(f"{transaction.description}: a transaction needs two postings")
        for posting in transaction.postings:
            account = self.account(posting.account)
            if posting.amount.code != account.code:
                raise LedgerError(
                    f"{transaction.description}: {account.name} is kept in {account.code}, "
                    f"not {posting.amount.code}"
                )
        if not transaction.is_balanced():
            raise LedgerError(f"{transaction.description}: postings do not balance")
        if self.closed_until is not None and transaction.day <= self.closed_until:
            raise LedgerError(f"{transaction.description}: {transaction.day} is in a closed period")
        self.transactions.append(transaction)
        return transaction

    def transfer(
        self, day: date, source: str, target: str, amount: Money, description: str = "transfer"
    ) -> Transaction:
        """Move `amount` from `source` to `target` (a credit to one, a debit to the other)."""
        if amount.amount <= 0:
            raise LedgerError("a transfer moves a positive amount")
        postings = (Posting(target, -amount), Posting(source, amount))
        return self.post(Transaction(day, description, postings))

    def balance(self, name: str, until: date | None = None) -> Money:
        """The account's balance on its normal side: positive for an asset with money in it
        and for a liability that is owed."""
        account = self.account(name)
        result = zero(account.code)
        for transaction in self.transactions:
            if until is not None and transaction.day > until:
                continue
            for posting in transaction.postings:
                if posting.account == name:
                    result = result + posting.amount
        return result if DEBIT_NORMAL[account.kind] else -result

    def balances(self, until: date | None = None) -> dict[str, Money]:
        return {name: self.balance(name, until) for name in sorted(self.accounts)}

    def trial_balance(self, until: date | None = None) -> dict[str, Money]:
        """Debits less credits of all accounts, per currency: zero in a sound ledger."""
        sums: dict[str, Money] = defaultdict(lambda: zero("EUR"))
        for transaction in self.transactions:
            if until is not None and transaction.day > until:
                continue
            for posting in transaction.postings:
                code = posting.amount.code
                if code not in sums:
                    sums[code] = zero(code)
                sums[code] = sums[code] + posting.amount
        return dict(sums)

    def close(self, until: date) -> None:
        """No posting on or before `until` from now on."""
        if self.closed_until is not None and until < self.closed_until:
            raise LedgerError("a period cannot be reopened")
        self.closed_until = until

    def history(self, name: str) -> list[tuple[date, str, Money, Money]]:
        """(day, description, amount, running balance) of every posting to `name`."""
        account = self.account(name)
        running = zero(account.code)
        rows = []
        sign = 1 if DEBIT_NORMAL[account.kind] else -1
        for transaction in sorted(self.transactions, key=lambda t: t.day):
            for posting in transaction.postings:
                if posting.account != name:
                    continue
                amount = posting.amount * sign
                running = running + amount
                rows.append((transaction.day, transaction.description, amount, running))
        return rows

    def tagged(self, tag: str) -> list[Transaction]:
        return [t for t in self.transactions if tag in t.tags]

    def between(self, start: date, end: date) -> list[Transaction]:
        """The transactions from `start` to `end`, both included, by day."""
        chosen = [t for t in self.transactions if start <= t.day <= end]
        return sorted(chosen, key=lambda t: t.day)

    def reverse(self, transaction: Transaction, day: date) -> Transaction:
        """Post the mirror image of `transaction` on `day`, so the books read as if it had
        never been posted while both entries stay visible: how a closed period is corrected."""
        if transaction not in self.transactions:
            raise LedgerError(f"{transaction.description}: not in this ledger")
        postings = tuple(Posting(p.account, -p.amount) for p in transaction.postings)
        description = f"reversal of {transaction.description}"
        return self.post(Transaction(day, description, postings, ("reversal",)))

    def split_expense(
        self, day: date, source: str, targets: list[str], amount: Money, description: str
    ) -> Transaction:
        """One payment from `source` shared evenly by the expense accounts `targets`."""
        if not targets:
            raise LedgerError("split between at least one account")
        shares = amount.split(len(targets))
        postings = [Posting(target, share) for target, share in zip(targets, shares)]
        postings.append(Posting(source, -amount))
        return self.post(Transaction(day, description, tuple(postings)))


def opening_balance(ledger: Ledger, day: date, name: str, amount: Money) -> Transaction:
    """Start `name` at `amount` against Equity:Opening (opened when missing)."""
    if "Equity:Opening" not in ledger.accounts:
        ledger.open("Equity:Opening", "equity", amount.code)
    account = ledger.account(name)
    signed = amount if DEBIT_NORMAL[account.kind] else -amount
    postings = (Posting(name, signed), Posting("Equity:Opening", -signed))
    return ledger.post(Transaction(day, f"opening balance {name}", postings))


def check_currency(ledger: Ledger, code: str) -> list[str]:
    """The accounts not kept in `code`."""
    return [name for name, account in ledger.accounts.items() if account.code != code]


def net_worth(ledger: Ledger, code: str, until: date | None = None) -> Money:
    """Assets less liabilities, for the accounts kept in `code`."""
    result = zero(code)
    for name, account in ledger.accounts.items():
        if account.code != code:
            continue
        if account.kind == "asset":
            result = result + ledger.balance(name, until)
        elif account.kind == "liability":
            result = result - ledger.balance(name, until)
    return result


def require_positive(amount: Money) -> Money:
    if amount.amount <= Decimal(0):
        raise MoneyError(f"{amount} is not positive")
    return amount


def income_statement(ledger: Ledger, start: date, end: date, code: str) -> dict[str, Money]:
    """The movement of every income and expense account kept in `code` from `start` to `end`,
    on its normal side, by name, and under "net" income less expenses."""
    rows: dict[str, Money] = {}
    for transaction in ledger.between(start, end):
        for posting in transaction.postings:
            account = ledger.account(posting.account)
            if account.kind not in ("income", "expense") or account.code != code:
                continue
            amount = posting.amount if DEBIT_NORMAL[account.kind] else -posting.amount
            rows[account.name] = rows.get(account.name, zero(code)) + amount
    income = total([a for n, a in rows.items() if ledger.account(n).kind == "income"], code)
    expenses = total([a for n, a in rows.items() if ledger.account(n).kind == "expense"], code)
    statement = {name: rows[name] for name in sorted(rows)}
    statement["net"] = income - expenses
    return statement


def close_year(ledger: Ledger, year: int, code: str = "EUR") -> Transaction | None:
    """Move the year's income and expenses into Equity:Retained on its last day, then close
    the year; None when nothing moved (the year is closed all the same)."""
    start, end = date(year, 1, 1), date(year, 12, 31)
    postings = []
    for name, amount in income_statement(ledger, start, end, code).items():
        if name == "net" or amount.is_zero():
            continue
        kind = ledger.account(name).kind
        postings.append(Posting(name, -amount if DEBIT_NORMAL[kind] else amount))
    if not postings:
        ledger.close(end)
        return None
    if "Equity:Retained" not in ledger.accounts:
        ledger.open("Equity:Retained", "equity", code)
    rest = total([posting.amount for posting in postings], code)
    postings.append(Posting("Equity:Retained", -rest))
    closing = ledger.post(Transaction(end, f"closing {year}", tuple(postings), ("closing",)))
    ledger.close(end)
    return closing


def reconcile(ledger: Ledger, name: str, statement: Money, day: date) -> Money:
    """The bank's balance on `day` less the books': zero when they agree, else what is
    missing from the books (positive) or booked twice (negative)."""
    account = ledger.account(name)
    if statement.code != account.code:
        raise LedgerError(f"{name} is kept in {account.code}, the statement is in {statement.code}")
    return statement - ledger.balance(name, day)


def accounts_of(ledger: Ledger, kind: str) -> list[Account]:
    """The open accounts of one kind, by name."""
    if kind not in KINDS:
        raise LedgerError(f"unknown account kind {kind!r}")
    return [ledger.accounts[name] for name in sorted(ledger.accounts)
            if ledger.accounts[name].kind == kind]
