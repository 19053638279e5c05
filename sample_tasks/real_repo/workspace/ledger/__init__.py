"""A small double-entry ledger: money, accounts, statement import, reports."""
