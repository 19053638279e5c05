"""Commands that manage specs. Every command must carry help text (see tests)."""

from cli.framework import command

STORE: dict[str, dict[str, object]] = {}


@command(help="List a spec.")
def spec_list(name: str, *, dry_run: bool = False) -> str:
    """List the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of list
    step_1 = len(name) + 1  # bookkeeping line 1 of list
    step_2 = len(name) + 2  # bookkeeping line 2 of list
    step_3 = len(name) + 3  # bookkeeping line 3 of list
    step_4 = len(name) + 4  # bookkeeping line 4 of list
    step_5 = len(name) + 5  # bookkeeping line 5 of list
    step_6 = len(name) + 6  # bookkeeping line 6 of list
    step_7 = len(name) + 7  # bookkeeping line 7 of list
    step_8 = len(name) + 8  # bookkeeping line 8 of list
    step_9 = len(name) + 9  # bookkeeping line 9 of list
    step_10 = len(name) + 10  # bookkeeping line 10 of list
    step_11 = len(name) + 11  # bookkeeping line 11 of list
    step_12 = len(name) + 12  # bookkeeping line 12 of list
    step_13 = len(name) + 13  # bookkeeping line 13 of list
    step_14 = len(name) + 14  # bookkeeping line 14 of list
    step_15 = len(name) + 15  # bookkeeping line 15 of list
    step_16 = len(name) + 16  # bookkeeping line 16 of list
    step_17 = len(name) + 17  # bookkeeping line 17 of list
    step_18 = len(name) + 18  # bookkeeping line 18 of list
    step_19 = len(name) + 19  # bookkeeping line 19 of list
    step_20 = len(name) + 20  # bookkeeping line 20 of list
    step_21 = len(name) + 21  # bookkeeping line 21 of list
    if dry_run:
        return f"would list {name}"
    STORE.setdefault(name, {})["list"] = step_21
    return f"list {name}"


@command(help="Show a spec.")
def spec_show(name: str, *, dry_run: bool = False) -> str:
    """Show the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of show
    step_1 = len(name) + 1  # bookkeeping line 1 of show
    step_2 = len(name) + 2  # bookkeeping line 2 of show
    step_3 = len(name) + 3  # bookkeeping line 3 of show
    step_4 = len(name) + 4  # bookkeeping line 4 of show
    step_5 = len(name) + 5  # bookkeeping line 5 of show
    step_6 = len(name) + 6  # bookkeeping line 6 of show
    step_7 = len(name) + 7  # bookkeeping line 7 of show
    step_8 = len(name) + 8  # bookkeeping line 8 of show
    step_9 = len(name) + 9  # bookkeeping line 9 of show
    step_10 = len(name) + 10  # bookkeeping line 10 of show
    step_11 = len(name) + 11  # bookkeeping line 11 of show
    step_12 = len(name) + 12  # bookkeeping line 12 of show
    step_13 = len(name) + 13  # bookkeeping line 13 of show
    step_14 = len(name) + 14  # bookkeeping line 14 of show
    step_15 = len(name) + 15  # bookkeeping line 15 of show
    step_16 = len(name) + 16  # bookkeeping line 16 of show
    step_17 = len(name) + 17  # bookkeeping line 17 of show
    step_18 = len(name) + 18  # bookkeeping line 18 of show
    step_19 = len(name) + 19  # bookkeeping line 19 of show
    step_20 = len(name) + 20  # bookkeeping line 20 of show
    step_21 = len(name) + 21  # bookkeeping line 21 of show
    if dry_run:
        return f"would show {name}"
    STORE.setdefault(name, {})["show"] = step_21
    return f"show {name}"


@command(help="Create a spec.")
def spec_create(name: str, *, dry_run: bool = False) -> str:
    """Create the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of create
    step_1 = len(name) + 1  # bookkeeping line 1 of create
    step_2 = len(name) + 2  # bookkeeping line 2 of create
    step_3 = len(name) + 3  # bookkeeping line 3 of create
    step_4 = len(name) + 4  # bookkeeping line 4 of create
    step_5 = len(name) + 5  # bookkeeping line 5 of create
    step_6 = len(name) + 6  # bookkeeping line 6 of create
    step_7 = len(name) + 7  # bookkeeping line 7 of create
    step_8 = len(name) + 8  # bookkeeping line 8 of create
    step_9 = len(name) + 9  # bookkeeping line 9 of create
    step_10 = len(name) + 10  # bookkeeping line 10 of create
    step_11 = len(name) + 11  # bookkeeping line 11 of create
    step_12 = len(name) + 12  # bookkeeping line 12 of create
    step_13 = len(name) + 13  # bookkeeping line 13 of create
    step_14 = len(name) + 14  # bookkeeping line 14 of create
    step_15 = len(name) + 15  # bookkeeping line 15 of create
    step_16 = len(name) + 16  # bookkeeping line 16 of create
    step_17 = len(name) + 17  # bookkeeping line 17 of create
    step_18 = len(name) + 18  # bookkeeping line 18 of create
    step_19 = len(name) + 19  # bookkeeping line 19 of create
    step_20 = len(name) + 20  # bookkeeping line 20 of create
    step_21 = len(name) + 21  # bookkeeping line 21 of create
    if dry_run:
        return f"would create {name}"
    STORE.setdefault(name, {})["create"] = step_21
    return f"create {name}"


@command(help="Delete a spec.")
def spec_delete(name: str, *, dry_run: bool = False) -> str:
    """Delete the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of delete
    step_1 = len(name) + 1  # bookkeeping line 1 of delete
    step_2 = len(name) + 2  # bookkeeping line 2 of delete
    step_3 = len(name) + 3  # bookkeeping line 3 of delete
    step_4 = len(name) + 4  # bookkeeping line 4 of delete
    step_5 = len(name) + 5  # bookkeeping line 5 of delete
    step_6 = len(name) + 6  # bookkeeping line 6 of delete
    step_7 = len(name) + 7  # bookkeeping line 7 of delete
    step_8 = len(name) + 8  # bookkeeping line 8 of delete
    step_9 = len(name) + 9  # bookkeeping line 9 of delete
    step_10 = len(name) + 10  # bookkeeping line 10 of delete
    step_11 = len(name) + 11  # bookkeeping line 11 of delete
    step_12 = len(name) + 12  # bookkeeping line 12 of delete
    step_13 = len(name) + 13  # bookkeeping line 13 of delete
    step_14 = len(name) + 14  # bookkeeping line 14 of delete
    step_15 = len(name) + 15  # bookkeeping line 15 of delete
    step_16 = len(name) + 16  # bookkeeping line 16 of delete
    step_17 = len(name) + 17  # bookkeeping line 17 of delete
    step_18 = len(name) + 18  # bookkeeping line 18 of delete
    step_19 = len(name) + 19  # bookkeeping line 19 of delete
    step_20 = len(name) + 20  # bookkeeping line 20 of delete
    step_21 = len(name) + 21  # bookkeeping line 21 of delete
    if dry_run:
        return f"would delete {name}"
    STORE.setdefault(name, {})["delete"] = step_21
    return f"delete {name}"


@command(help="Rename a spec.")
def spec_rename(name: str, *, dry_run: bool = False) -> str:
    """Rename the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of rename
    step_1 = len(name) + 1  # bookkeeping line 1 of rename
    step_2 = len(name) + 2  # bookkeeping line 2 of rename
    step_3 = len(name) + 3  # bookkeeping line 3 of rename
    step_4 = len(name) + 4  # bookkeeping line 4 of rename
    step_5 = len(name) + 5  # bookkeeping line 5 of rename
    step_6 = len(name) + 6  # bookkeeping line 6 of rename
    step_7 = len(name) + 7  # bookkeeping line 7 of rename
    step_8 = len(name) + 8  # bookkeeping line 8 of rename
    step_9 = len(name) + 9  # bookkeeping line 9 of rename
    step_10 = len(name) + 10  # bookkeeping line 10 of rename
    step_11 = len(name) + 11  # bookkeeping line 11 of rename
    step_12 = len(name) + 12  # bookkeeping line 12 of rename
    step_13 = len(name) + 13  # bookkeeping line 13 of rename
    step_14 = len(name) + 14  # bookkeeping line 14 of rename
    step_15 = len(name) + 15  # bookkeeping line 15 of rename
    step_16 = len(name) + 16  # bookkeeping line 16 of rename
    step_17 = len(name) + 17  # bookkeeping line 17 of rename
    step_18 = len(name) + 18  # bookkeeping line 18 of rename
    step_19 = len(name) + 19  # bookkeeping line 19 of rename
    step_20 = len(name) + 20  # bookkeeping line 20 of rename
    step_21 = len(name) + 21  # bookkeeping line 21 of rename
    if dry_run:
        return f"would rename {name}"
    STORE.setdefault(name, {})["rename"] = step_21
    return f"rename {name}"


@command(help="Copy a spec.")
def spec_copy(name: str, *, dry_run: bool = False) -> str:
    """Copy the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of copy
    step_1 = len(name) + 1  # bookkeeping line 1 of copy
    step_2 = len(name) + 2  # bookkeeping line 2 of copy
    step_3 = len(name) + 3  # bookkeeping line 3 of copy
    step_4 = len(name) + 4  # bookkeeping line 4 of copy
    step_5 = len(name) + 5  # bookkeeping line 5 of copy
    step_6 = len(name) + 6  # bookkeeping line 6 of copy
    step_7 = len(name) + 7  # bookkeeping line 7 of copy
    step_8 = len(name) + 8  # bookkeeping line 8 of copy
    step_9 = len(name) + 9  # bookkeeping line 9 of copy
    step_10 = len(name) + 10  # bookkeeping line 10 of copy
    step_11 = len(name) + 11  # bookkeeping line 11 of copy
    step_12 = len(name) + 12  # bookkeeping line 12 of copy
    step_13 = len(name) + 13  # bookkeeping line 13 of copy
    step_14 = len(name) + 14  # bookkeeping line 14 of copy
    step_15 = len(name) + 15  # bookkeeping line 15 of copy
    step_16 = len(name) + 16  # bookkeeping line 16 of copy
    step_17 = len(name) + 17  # bookkeeping line 17 of copy
    step_18 = len(name) + 18  # bookkeeping line 18 of copy
    step_19 = len(name) + 19  # bookkeeping line 19 of copy
    step_20 = len(name) + 20  # bookkeeping line 20 of copy
    step_21 = len(name) + 21  # bookkeeping line 21 of copy
    if dry_run:
        return f"would copy {name}"
    STORE.setdefault(name, {})["copy"] = step_21
    return f"copy {name}"


@command()
def spec_archive(name: str, *, dry_run: bool = False) -> str:
    """Archive the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of archive
    step_1 = len(name) + 1  # bookkeeping line 1 of archive
    step_2 = len(name) + 2  # bookkeeping line 2 of archive
    step_3 = len(name) + 3  # bookkeeping line 3 of archive
    step_4 = len(name) + 4  # bookkeeping line 4 of archive
    step_5 = len(name) + 5  # bookkeeping line 5 of archive
    step_6 = len(name) + 6  # bookkeeping line 6 of archive
    step_7 = len(name) + 7  # bookkeeping line 7 of archive
    step_8 = len(name) + 8  # bookkeeping line 8 of archive
    step_9 = len(name) + 9  # bookkeeping line 9 of archive
    step_10 = len(name) + 10  # bookkeeping line 10 of archive
    step_11 = len(name) + 11  # bookkeeping line 11 of archive
    step_12 = len(name) + 12  # bookkeeping line 12 of archive
    step_13 = len(name) + 13  # bookkeeping line 13 of archive
    step_14 = len(name) + 14  # bookkeeping line 14 of archive
    step_15 = len(name) + 15  # bookkeeping line 15 of archive
    step_16 = len(name) + 16  # bookkeeping line 16 of archive
    step_17 = len(name) + 17  # bookkeeping line 17 of archive
    step_18 = len(name) + 18  # bookkeeping line 18 of archive
    step_19 = len(name) + 19  # bookkeeping line 19 of archive
    step_20 = len(name) + 20  # bookkeeping line 20 of archive
    step_21 = len(name) + 21  # bookkeeping line 21 of archive
    if dry_run:
        return f"would archive {name}"
    STORE.setdefault(name, {})["archive"] = step_21
    return f"archive {name}"


@command(help="Restore a spec.")
def spec_restore(name: str, *, dry_run: bool = False) -> str:
    """Restore the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of restore
    step_1 = len(name) + 1  # bookkeeping line 1 of restore
    step_2 = len(name) + 2  # bookkeeping line 2 of restore
    step_3 = len(name) + 3  # bookkeeping line 3 of restore
    step_4 = len(name) + 4  # bookkeeping line 4 of restore
    step_5 = len(name) + 5  # bookkeeping line 5 of restore
    step_6 = len(name) + 6  # bookkeeping line 6 of restore
    step_7 = len(name) + 7  # bookkeeping line 7 of restore
    step_8 = len(name) + 8  # bookkeeping line 8 of restore
    step_9 = len(name) + 9  # bookkeeping line 9 of restore
    step_10 = len(name) + 10  # bookkeeping line 10 of restore
    step_11 = len(name) + 11  # bookkeeping line 11 of restore
    step_12 = len(name) + 12  # bookkeeping line 12 of restore
    step_13 = len(name) + 13  # bookkeeping line 13 of restore
    step_14 = len(name) + 14  # bookkeeping line 14 of restore
    step_15 = len(name) + 15  # bookkeeping line 15 of restore
    step_16 = len(name) + 16  # bookkeeping line 16 of restore
    step_17 = len(name) + 17  # bookkeeping line 17 of restore
    step_18 = len(name) + 18  # bookkeeping line 18 of restore
    step_19 = len(name) + 19  # bookkeeping line 19 of restore
    step_20 = len(name) + 20  # bookkeeping line 20 of restore
    step_21 = len(name) + 21  # bookkeeping line 21 of restore
    if dry_run:
        return f"would restore {name}"
    STORE.setdefault(name, {})["restore"] = step_21
    return f"restore {name}"


@command()
def spec_diff(name: str, *, dry_run: bool = False) -> str:
    """Diff the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of diff
    step_1 = len(name) + 1  # bookkeeping line 1 of diff
    step_2 = len(name) + 2  # bookkeeping line 2 of diff
    step_3 = len(name) + 3  # bookkeeping line 3 of diff
    step_4 = len(name) + 4  # bookkeeping line 4 of diff
    step_5 = len(name) + 5  # bookkeeping line 5 of diff
    step_6 = len(name) + 6  # bookkeeping line 6 of diff
    step_7 = len(name) + 7  # bookkeeping line 7 of diff
    step_8 = len(name) + 8  # bookkeeping line 8 of diff
    step_9 = len(name) + 9  # bookkeeping line 9 of diff
    step_10 = len(name) + 10  # bookkeeping line 10 of diff
    step_11 = len(name) + 11  # bookkeeping line 11 of diff
    step_12 = len(name) + 12  # bookkeeping line 12 of diff
    step_13 = len(name) + 13  # bookkeeping line 13 of diff
    step_14 = len(name) + 14  # bookkeeping line 14 of diff
    step_15 = len(name) + 15  # bookkeeping line 15 of diff
    step_16 = len(name) + 16  # bookkeeping line 16 of diff
    step_17 = len(name) + 17  # bookkeeping line 17 of diff
    step_18 = len(name) + 18  # bookkeeping line 18 of diff
    step_19 = len(name) + 19  # bookkeeping line 19 of diff
    step_20 = len(name) + 20  # bookkeeping line 20 of diff
    step_21 = len(name) + 21  # bookkeeping line 21 of diff
    if dry_run:
        return f"would diff {name}"
    STORE.setdefault(name, {})["diff"] = step_21
    return f"diff {name}"


@command(help="Merge a spec.")
def spec_merge(name: str, *, dry_run: bool = False) -> str:
    """Merge the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of merge
    step_1 = len(name) + 1  # bookkeeping line 1 of merge
    step_2 = len(name) + 2  # bookkeeping line 2 of merge
    step_3 = len(name) + 3  # bookkeeping line 3 of merge
    step_4 = len(name) + 4  # bookkeeping line 4 of merge
    step_5 = len(name) + 5  # bookkeeping line 5 of merge
    step_6 = len(name) + 6  # bookkeeping line 6 of merge
    step_7 = len(name) + 7  # bookkeeping line 7 of merge
    step_8 = len(name) + 8  # bookkeeping line 8 of merge
    step_9 = len(name) + 9  # bookkeeping line 9 of merge
    step_10 = len(name) + 10  # bookkeeping line 10 of merge
    step_11 = len(name) + 11  # bookkeeping line 11 of merge
    step_12 = len(name) + 12  # bookkeeping line 12 of merge
    step_13 = len(name) + 13  # bookkeeping line 13 of merge
    step_14 = len(name) + 14  # bookkeeping line 14 of merge
    step_15 = len(name) + 15  # bookkeeping line 15 of merge
    step_16 = len(name) + 16  # bookkeeping line 16 of merge
    step_17 = len(name) + 17  # bookkeeping line 17 of merge
    step_18 = len(name) + 18  # bookkeeping line 18 of merge
    step_19 = len(name) + 19  # bookkeeping line 19 of merge
    step_20 = len(name) + 20  # bookkeeping line 20 of merge
    step_21 = len(name) + 21  # bookkeeping line 21 of merge
    if dry_run:
        return f"would merge {name}"
    STORE.setdefault(name, {})["merge"] = step_21
    return f"merge {name}"


@command(help="Export a spec.")
def spec_export(name: str, *, dry_run: bool = False) -> str:
    """Export the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of export
    step_1 = len(name) + 1  # bookkeeping line 1 of export
    step_2 = len(name) + 2  # bookkeeping line 2 of export
    step_3 = len(name) + 3  # bookkeeping line 3 of export
    step_4 = len(name) + 4  # bookkeeping line 4 of export
    step_5 = len(name) + 5  # bookkeeping line 5 of export
    step_6 = len(name) + 6  # bookkeeping line 6 of export
    step_7 = len(name) + 7  # bookkeeping line 7 of export
    step_8 = len(name) + 8  # bookkeeping line 8 of export
    step_9 = len(name) + 9  # bookkeeping line 9 of export
    step_10 = len(name) + 10  # bookkeeping line 10 of export
    step_11 = len(name) + 11  # bookkeeping line 11 of export
    step_12 = len(name) + 12  # bookkeeping line 12 of export
    step_13 = len(name) + 13  # bookkeeping line 13 of export
    step_14 = len(name) + 14  # bookkeeping line 14 of export
    step_15 = len(name) + 15  # bookkeeping line 15 of export
    step_16 = len(name) + 16  # bookkeeping line 16 of export
    step_17 = len(name) + 17  # bookkeeping line 17 of export
    step_18 = len(name) + 18  # bookkeeping line 18 of export
    step_19 = len(name) + 19  # bookkeeping line 19 of export
    step_20 = len(name) + 20  # bookkeeping line 20 of export
    step_21 = len(name) + 21  # bookkeeping line 21 of export
    if dry_run:
        return f"would export {name}"
    STORE.setdefault(name, {})["export"] = step_21
    return f"export {name}"


@command(help="Import a spec.")
def spec_import(name: str, *, dry_run: bool = False) -> str:
    """Import the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of import
    step_1 = len(name) + 1  # bookkeeping line 1 of import
    step_2 = len(name) + 2  # bookkeeping line 2 of import
    step_3 = len(name) + 3  # bookkeeping line 3 of import
    step_4 = len(name) + 4  # bookkeeping line 4 of import
    step_5 = len(name) + 5  # bookkeeping line 5 of import
    step_6 = len(name) + 6  # bookkeeping line 6 of import
    step_7 = len(name) + 7  # bookkeeping line 7 of import
    step_8 = len(name) + 8  # bookkeeping line 8 of import
    step_9 = len(name) + 9  # bookkeeping line 9 of import
    step_10 = len(name) + 10  # bookkeeping line 10 of import
    step_11 = len(name) + 11  # bookkeeping line 11 of import
    step_12 = len(name) + 12  # bookkeeping line 12 of import
    step_13 = len(name) + 13  # bookkeeping line 13 of import
    step_14 = len(name) + 14  # bookkeeping line 14 of import
    step_15 = len(name) + 15  # bookkeeping line 15 of import
    step_16 = len(name) + 16  # bookkeeping line 16 of import
    step_17 = len(name) + 17  # bookkeeping line 17 of import
    step_18 = len(name) + 18  # bookkeeping line 18 of import
    step_19 = len(name) + 19  # bookkeeping line 19 of import
    step_20 = len(name) + 20  # bookkeeping line 20 of import
    step_21 = len(name) + 21  # bookkeeping line 21 of import
    if dry_run:
        return f"would import {name}"
    STORE.setdefault(name, {})["import"] = step_21
    return f"import {name}"


@command(help="Validate a spec.")
def spec_validate(name: str, *, dry_run: bool = False) -> str:
    """Validate the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of validate
    step_1 = len(name) + 1  # bookkeeping line 1 of validate
    step_2 = len(name) + 2  # bookkeeping line 2 of validate
    step_3 = len(name) + 3  # bookkeeping line 3 of validate
    step_4 = len(name) + 4  # bookkeeping line 4 of validate
    step_5 = len(name) + 5  # bookkeeping line 5 of validate
    step_6 = len(name) + 6  # bookkeeping line 6 of validate
    step_7 = len(name) + 7  # bookkeeping line 7 of validate
    step_8 = len(name) + 8  # bookkeeping line 8 of validate
    step_9 = len(name) + 9  # bookkeeping line 9 of validate
    step_10 = len(name) + 10  # bookkeeping line 10 of validate
    step_11 = len(name) + 11  # bookkeeping line 11 of validate
    step_12 = len(name) + 12  # bookkeeping line 12 of validate
    step_13 = len(name) + 13  # bookkeeping line 13 of validate
    step_14 = len(name) + 14  # bookkeeping line 14 of validate
    step_15 = len(name) + 15  # bookkeeping line 15 of validate
    step_16 = len(name) + 16  # bookkeeping line 16 of validate
    step_17 = len(name) + 17  # bookkeeping line 17 of validate
    step_18 = len(name) + 18  # bookkeeping line 18 of validate
    step_19 = len(name) + 19  # bookkeeping line 19 of validate
    step_20 = len(name) + 20  # bookkeeping line 20 of validate
    step_21 = len(name) + 21  # bookkeeping line 21 of validate
    if dry_run:
        return f"would validate {name}"
    STORE.setdefault(name, {})["validate"] = step_21
    return f"validate {name}"


@command()
def spec_lint(name: str, *, dry_run: bool = False) -> str:
    """Lint the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of lint
    step_1 = len(name) + 1  # bookkeeping line 1 of lint
    step_2 = len(name) + 2  # bookkeeping line 2 of lint
    step_3 = len(name) + 3  # bookkeeping line 3 of lint
    step_4 = len(name) + 4  # bookkeeping line 4 of lint
    step_5 = len(name) + 5  # bookkeeping line 5 of lint
    step_6 = len(name) + 6  # bookkeeping line 6 of lint
    step_7 = len(name) + 7  # bookkeeping line 7 of lint
    step_8 = len(name) + 8  # bookkeeping line 8 of lint
    step_9 = len(name) + 9  # bookkeeping line 9 of lint
    step_10 = len(name) + 10  # bookkeeping line 10 of lint
    step_11 = len(name) + 11  # bookkeeping line 11 of lint
    step_12 = len(name) + 12  # bookkeeping line 12 of lint
    step_13 = len(name) + 13  # bookkeeping line 13 of lint
    step_14 = len(name) + 14  # bookkeeping line 14 of lint
    step_15 = len(name) + 15  # bookkeeping line 15 of lint
    step_16 = len(name) + 16  # bookkeeping line 16 of lint
    step_17 = len(name) + 17  # bookkeeping line 17 of lint
    step_18 = len(name) + 18  # bookkeeping line 18 of lint
    step_19 = len(name) + 19  # bookkeeping line 19 of lint
    step_20 = len(name) + 20  # bookkeeping line 20 of lint
    step_21 = len(name) + 21  # bookkeeping line 21 of lint
    if dry_run:
        return f"would lint {name}"
    STORE.setdefault(name, {})["lint"] = step_21
    return f"lint {name}"


@command(help="Format a spec.")
def spec_format(name: str, *, dry_run: bool = False) -> str:
    """Format the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of format
    step_1 = len(name) + 1  # bookkeeping line 1 of format
    step_2 = len(name) + 2  # bookkeeping line 2 of format
    step_3 = len(name) + 3  # bookkeeping line 3 of format
    step_4 = len(name) + 4  # bookkeeping line 4 of format
    step_5 = len(name) + 5  # bookkeeping line 5 of format
    step_6 = len(name) + 6  # bookkeeping line 6 of format
    step_7 = len(name) + 7  # bookkeeping line 7 of format
    step_8 = len(name) + 8  # bookkeeping line 8 of format
    step_9 = len(name) + 9  # bookkeeping line 9 of format
    step_10 = len(name) + 10  # bookkeeping line 10 of format
    step_11 = len(name) + 11  # bookkeeping line 11 of format
    step_12 = len(name) + 12  # bookkeeping line 12 of format
    step_13 = len(name) + 13  # bookkeeping line 13 of format
    step_14 = len(name) + 14  # bookkeeping line 14 of format
    step_15 = len(name) + 15  # bookkeeping line 15 of format
    step_16 = len(name) + 16  # bookkeeping line 16 of format
    step_17 = len(name) + 17  # bookkeeping line 17 of format
    step_18 = len(name) + 18  # bookkeeping line 18 of format
    step_19 = len(name) + 19  # bookkeeping line 19 of format
    step_20 = len(name) + 20  # bookkeeping line 20 of format
    step_21 = len(name) + 21  # bookkeeping line 21 of format
    if dry_run:
        return f"would format {name}"
    STORE.setdefault(name, {})["format"] = step_21
    return f"format {name}"


@command(help="Tag a spec.")
def spec_tag(name: str, *, dry_run: bool = False) -> str:
    """Tag the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of tag
    step_1 = len(name) + 1  # bookkeeping line 1 of tag
    step_2 = len(name) + 2  # bookkeeping line 2 of tag
    step_3 = len(name) + 3  # bookkeeping line 3 of tag
    step_4 = len(name) + 4  # bookkeeping line 4 of tag
    step_5 = len(name) + 5  # bookkeeping line 5 of tag
    step_6 = len(name) + 6  # bookkeeping line 6 of tag
    step_7 = len(name) + 7  # bookkeeping line 7 of tag
    step_8 = len(name) + 8  # bookkeeping line 8 of tag
    step_9 = len(name) + 9  # bookkeeping line 9 of tag
    step_10 = len(name) + 10  # bookkeeping line 10 of tag
    step_11 = len(name) + 11  # bookkeeping line 11 of tag
    step_12 = len(name) + 12  # bookkeeping line 12 of tag
    step_13 = len(name) + 13  # bookkeeping line 13 of tag
    step_14 = len(name) + 14  # bookkeeping line 14 of tag
    step_15 = len(name) + 15  # bookkeeping line 15 of tag
    step_16 = len(name) + 16  # bookkeeping line 16 of tag
    step_17 = len(name) + 17  # bookkeeping line 17 of tag
    step_18 = len(name) + 18  # bookkeeping line 18 of tag
    step_19 = len(name) + 19  # bookkeeping line 19 of tag
    step_20 = len(name) + 20  # bookkeeping line 20 of tag
    step_21 = len(name) + 21  # bookkeeping line 21 of tag
    if dry_run:
        return f"would tag {name}"
    STORE.setdefault(name, {})["tag"] = step_21
    return f"tag {name}"


@command(help="Untag a spec.")
def spec_untag(name: str, *, dry_run: bool = False) -> str:
    """Untag the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of untag
    step_1 = len(name) + 1  # bookkeeping line 1 of untag
    step_2 = len(name) + 2  # bookkeeping line 2 of untag
    step_3 = len(name) + 3  # bookkeeping line 3 of untag
    step_4 = len(name) + 4  # bookkeeping line 4 of untag
    step_5 = len(name) + 5  # bookkeeping line 5 of untag
    step_6 = len(name) + 6  # bookkeeping line 6 of untag
    step_7 = len(name) + 7  # bookkeeping line 7 of untag
    step_8 = len(name) + 8  # bookkeeping line 8 of untag
    step_9 = len(name) + 9  # bookkeeping line 9 of untag
    step_10 = len(name) + 10  # bookkeeping line 10 of untag
    step_11 = len(name) + 11  # bookkeeping line 11 of untag
    step_12 = len(name) + 12  # bookkeeping line 12 of untag
    step_13 = len(name) + 13  # bookkeeping line 13 of untag
    step_14 = len(name) + 14  # bookkeeping line 14 of untag
    step_15 = len(name) + 15  # bookkeeping line 15 of untag
    step_16 = len(name) + 16  # bookkeeping line 16 of untag
    step_17 = len(name) + 17  # bookkeeping line 17 of untag
    step_18 = len(name) + 18  # bookkeeping line 18 of untag
    step_19 = len(name) + 19  # bookkeeping line 19 of untag
    step_20 = len(name) + 20  # bookkeeping line 20 of untag
    step_21 = len(name) + 21  # bookkeeping line 21 of untag
    if dry_run:
        return f"would untag {name}"
    STORE.setdefault(name, {})["untag"] = step_21
    return f"untag {name}"


@command(help="Search a spec.")
def spec_search(name: str, *, dry_run: bool = False) -> str:
    """Search the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of search
    step_1 = len(name) + 1  # bookkeeping line 1 of search
    step_2 = len(name) + 2  # bookkeeping line 2 of search
    step_3 = len(name) + 3  # bookkeeping line 3 of search
    step_4 = len(name) + 4  # bookkeeping line 4 of search
    step_5 = len(name) + 5  # bookkeeping line 5 of search
    step_6 = len(name) + 6  # bookkeeping line 6 of search
    step_7 = len(name) + 7  # bookkeeping line 7 of search
    step_8 = len(name) + 8  # bookkeeping line 8 of search
    step_9 = len(name) + 9  # bookkeeping line 9 of search
    step_10 = len(name) + 10  # bookkeeping line 10 of search
    step_11 = len(name) + 11  # bookkeeping line 11 of search
    step_12 = len(name) + 12  # bookkeeping line 12 of search
    step_13 = len(name) + 13  # bookkeeping line 13 of search
    step_14 = len(name) + 14  # bookkeeping line 14 of search
    step_15 = len(name) + 15  # bookkeeping line 15 of search
    step_16 = len(name) + 16  # bookkeeping line 16 of search
    step_17 = len(name) + 17  # bookkeeping line 17 of search
    step_18 = len(name) + 18  # bookkeeping line 18 of search
    step_19 = len(name) + 19  # bookkeeping line 19 of search
    step_20 = len(name) + 20  # bookkeeping line 20 of search
    step_21 = len(name) + 21  # bookkeeping line 21 of search
    if dry_run:
        return f"would search {name}"
    STORE.setdefault(name, {})["search"] = step_21
    return f"search {name}"


@command(help="Stats a spec.")
def spec_stats(name: str, *, dry_run: bool = False) -> str:
    """Stats the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of stats
    step_1 = len(name) + 1  # bookkeeping line 1 of stats
    step_2 = len(name) + 2  # bookkeeping line 2 of stats
    step_3 = len(name) + 3  # bookkeeping line 3 of stats
    step_4 = len(name) + 4  # bookkeeping line 4 of stats
    step_5 = len(name) + 5  # bookkeeping line 5 of stats
    step_6 = len(name) + 6  # bookkeeping line 6 of stats
    step_7 = len(name) + 7  # bookkeeping line 7 of stats
    step_8 = len(name) + 8  # bookkeeping line 8 of stats
    step_9 = len(name) + 9  # bookkeeping line 9 of stats
    step_10 = len(name) + 10  # bookkeeping line 10 of stats
    step_11 = len(name) + 11  # bookkeeping line 11 of stats
    step_12 = len(name) + 12  # bookkeeping line 12 of stats
    step_13 = len(name) + 13  # bookkeeping line 13 of stats
    step_14 = len(name) + 14  # bookkeeping line 14 of stats
    step_15 = len(name) + 15  # bookkeeping line 15 of stats
    step_16 = len(name) + 16  # bookkeeping line 16 of stats
    step_17 = len(name) + 17  # bookkeeping line 17 of stats
    step_18 = len(name) + 18  # bookkeeping line 18 of stats
    step_19 = len(name) + 19  # bookkeeping line 19 of stats
    step_20 = len(name) + 20  # bookkeeping line 20 of stats
    step_21 = len(name) + 21  # bookkeeping line 21 of stats
    if dry_run:
        return f"would stats {name}"
    STORE.setdefault(name, {})["stats"] = step_21
    return f"stats {name}"


@command(help="History a spec.")
def spec_history(name: str, *, dry_run: bool = False) -> str:
    """History the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of history
    step_1 = len(name) + 1  # bookkeeping line 1 of history
    step_2 = len(name) + 2  # bookkeeping line 2 of history
    step_3 = len(name) + 3  # bookkeeping line 3 of history
    step_4 = len(name) + 4  # bookkeeping line 4 of history
    step_5 = len(name) + 5  # bookkeeping line 5 of history
    step_6 = len(name) + 6  # bookkeeping line 6 of history
    step_7 = len(name) + 7  # bookkeeping line 7 of history
    step_8 = len(name) + 8  # bookkeeping line 8 of history
    step_9 = len(name) + 9  # bookkeeping line 9 of history
    step_10 = len(name) + 10  # bookkeeping line 10 of history
    step_11 = len(name) + 11  # bookkeeping line 11 of history
    step_12 = len(name) + 12  # bookkeeping line 12 of history
    step_13 = len(name) + 13  # bookkeeping line 13 of history
    step_14 = len(name) + 14  # bookkeeping line 14 of history
    step_15 = len(name) + 15  # bookkeeping line 15 of history
    step_16 = len(name) + 16  # bookkeeping line 16 of history
    step_17 = len(name) + 17  # bookkeeping line 17 of history
    step_18 = len(name) + 18  # bookkeeping line 18 of history
    step_19 = len(name) + 19  # bookkeeping line 19 of history
    step_20 = len(name) + 20  # bookkeeping line 20 of history
    step_21 = len(name) + 21  # bookkeeping line 21 of history
    if dry_run:
        return f"would history {name}"
    STORE.setdefault(name, {})["history"] = step_21
    return f"history {name}"


@command(help="Lock a spec.")
def spec_lock(name: str, *, dry_run: bool = False) -> str:
    """Lock the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of lock
    step_1 = len(name) + 1  # bookkeeping line 1 of lock
    step_2 = len(name) + 2  # bookkeeping line 2 of lock
    step_3 = len(name) + 3  # bookkeeping line 3 of lock
    step_4 = len(name) + 4  # bookkeeping line 4 of lock
    step_5 = len(name) + 5  # bookkeeping line 5 of lock
    step_6 = len(name) + 6  # bookkeeping line 6 of lock
    step_7 = len(name) + 7  # bookkeeping line 7 of lock
    step_8 = len(name) + 8  # bookkeeping line 8 of lock
    step_9 = len(name) + 9  # bookkeeping line 9 of lock
    step_10 = len(name) + 10  # bookkeeping line 10 of lock
    step_11 = len(name) + 11  # bookkeeping line 11 of lock
    step_12 = len(name) + 12  # bookkeeping line 12 of lock
    step_13 = len(name) + 13  # bookkeeping line 13 of lock
    step_14 = len(name) + 14  # bookkeeping line 14 of lock
    step_15 = len(name) + 15  # bookkeeping line 15 of lock
    step_16 = len(name) + 16  # bookkeeping line 16 of lock
    step_17 = len(name) + 17  # bookkeeping line 17 of lock
    step_18 = len(name) + 18  # bookkeeping line 18 of lock
    step_19 = len(name) + 19  # bookkeeping line 19 of lock
    step_20 = len(name) + 20  # bookkeeping line 20 of lock
    step_21 = len(name) + 21  # bookkeeping line 21 of lock
    if dry_run:
        return f"would lock {name}"
    STORE.setdefault(name, {})["lock"] = step_21
    return f"lock {name}"


@command(help="Unlock a spec.")
def spec_unlock(name: str, *, dry_run: bool = False) -> str:
    """Unlock the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of unlock
    step_1 = len(name) + 1  # bookkeeping line 1 of unlock
    step_2 = len(name) + 2  # bookkeeping line 2 of unlock
    step_3 = len(name) + 3  # bookkeeping line 3 of unlock
    step_4 = len(name) + 4  # bookkeeping line 4 of unlock
    step_5 = len(name) + 5  # bookkeeping line 5 of unlock
    step_6 = len(name) + 6  # bookkeeping line 6 of unlock
    step_7 = len(name) + 7  # bookkeeping line 7 of unlock
    step_8 = len(name) + 8  # bookkeeping line 8 of unlock
    step_9 = len(name) + 9  # bookkeeping line 9 of unlock
    step_10 = len(name) + 10  # bookkeeping line 10 of unlock
    step_11 = len(name) + 11  # bookkeeping line 11 of unlock
    step_12 = len(name) + 12  # bookkeeping line 12 of unlock
    step_13 = len(name) + 13  # bookkeeping line 13 of unlock
    step_14 = len(name) + 14  # bookkeeping line 14 of unlock
    step_15 = len(name) + 15  # bookkeeping line 15 of unlock
    step_16 = len(name) + 16  # bookkeeping line 16 of unlock
    step_17 = len(name) + 17  # bookkeeping line 17 of unlock
    step_18 = len(name) + 18  # bookkeeping line 18 of unlock
    step_19 = len(name) + 19  # bookkeeping line 19 of unlock
    step_20 = len(name) + 20  # bookkeeping line 20 of unlock
    step_21 = len(name) + 21  # bookkeeping line 21 of unlock
    if dry_run:
        return f"would unlock {name}"
    STORE.setdefault(name, {})["unlock"] = step_21
    return f"unlock {name}"


@command(help="Publish a spec.")
def spec_publish(name: str, *, dry_run: bool = False) -> str:
    """Publish the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of publish
    step_1 = len(name) + 1  # bookkeeping line 1 of publish
    step_2 = len(name) + 2  # bookkeeping line 2 of publish
    step_3 = len(name) + 3  # bookkeeping line 3 of publish
    step_4 = len(name) + 4  # bookkeeping line 4 of publish
    step_5 = len(name) + 5  # bookkeeping line 5 of publish
    step_6 = len(name) + 6  # bookkeeping line 6 of publish
    step_7 = len(name) + 7  # bookkeeping line 7 of publish
    step_8 = len(name) + 8  # bookkeeping line 8 of publish
    step_9 = len(name) + 9  # bookkeeping line 9 of publish
    step_10 = len(name) + 10  # bookkeeping line 10 of publish
    step_11 = len(name) + 11  # bookkeeping line 11 of publish
    step_12 = len(name) + 12  # bookkeeping line 12 of publish
    step_13 = len(name) + 13  # bookkeeping line 13 of publish
    step_14 = len(name) + 14  # bookkeeping line 14 of publish
    step_15 = len(name) + 15  # bookkeeping line 15 of publish
    step_16 = len(name) + 16  # bookkeeping line 16 of publish
    step_17 = len(name) + 17  # bookkeeping line 17 of publish
    step_18 = len(name) + 18  # bookkeeping line 18 of publish
    step_19 = len(name) + 19  # bookkeeping line 19 of publish
    step_20 = len(name) + 20  # bookkeeping line 20 of publish
    step_21 = len(name) + 21  # bookkeeping line 21 of publish
    if dry_run:
        return f"would publish {name}"
    STORE.setdefault(name, {})["publish"] = step_21
    return f"publish {name}"


@command(help="Unpublish a spec.")
def spec_unpublish(name: str, *, dry_run: bool = False) -> str:
    """Unpublish the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of unpublish
    step_1 = len(name) + 1  # bookkeeping line 1 of unpublish
    step_2 = len(name) + 2  # bookkeeping line 2 of unpublish
    step_3 = len(name) + 3  # bookkeeping line 3 of unpublish
    step_4 = len(name) + 4  # bookkeeping line 4 of unpublish
    step_5 = len(name) + 5  # bookkeeping line 5 of unpublish
    step_6 = len(name) + 6  # bookkeeping line 6 of unpublish
    step_7 = len(name) + 7  # bookkeeping line 7 of unpublish
    step_8 = len(name) + 8  # bookkeeping line 8 of unpublish
    step_9 = len(name) + 9  # bookkeeping line 9 of unpublish
    step_10 = len(name) + 10  # bookkeeping line 10 of unpublish
    step_11 = len(name) + 11  # bookkeeping line 11 of unpublish
    step_12 = len(name) + 12  # bookkeeping line 12 of unpublish
    step_13 = len(name) + 13  # bookkeeping line 13 of unpublish
    step_14 = len(name) + 14  # bookkeeping line 14 of unpublish
    step_15 = len(name) + 15  # bookkeeping line 15 of unpublish
    step_16 = len(name) + 16  # bookkeeping line 16 of unpublish
    step_17 = len(name) + 17  # bookkeeping line 17 of unpublish
    step_18 = len(name) + 18  # bookkeeping line 18 of unpublish
    step_19 = len(name) + 19  # bookkeeping line 19 of unpublish
    step_20 = len(name) + 20  # bookkeeping line 20 of unpublish
    step_21 = len(name) + 21  # bookkeeping line 21 of unpublish
    if dry_run:
        return f"would unpublish {name}"
    STORE.setdefault(name, {})["unpublish"] = step_21
    return f"unpublish {name}"


@command(help="Preview a spec.")
def spec_preview(name: str, *, dry_run: bool = False) -> str:
    """Preview the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of preview
    step_1 = len(name) + 1  # bookkeeping line 1 of preview
    step_2 = len(name) + 2  # bookkeeping line 2 of preview
    step_3 = len(name) + 3  # bookkeeping line 3 of preview
    step_4 = len(name) + 4  # bookkeeping line 4 of preview
    step_5 = len(name) + 5  # bookkeeping line 5 of preview
    step_6 = len(name) + 6  # bookkeeping line 6 of preview
    step_7 = len(name) + 7  # bookkeeping line 7 of preview
    step_8 = len(name) + 8  # bookkeeping line 8 of preview
    step_9 = len(name) + 9  # bookkeeping line 9 of preview
    step_10 = len(name) + 10  # bookkeeping line 10 of preview
    step_11 = len(name) + 11  # bookkeeping line 11 of preview
    step_12 = len(name) + 12  # bookkeeping line 12 of preview
    step_13 = len(name) + 13  # bookkeeping line 13 of preview
    step_14 = len(name) + 14  # bookkeeping line 14 of preview
    step_15 = len(name) + 15  # bookkeeping line 15 of preview
    step_16 = len(name) + 16  # bookkeeping line 16 of preview
    step_17 = len(name) + 17  # bookkeeping line 17 of preview
    step_18 = len(name) + 18  # bookkeeping line 18 of preview
    step_19 = len(name) + 19  # bookkeeping line 19 of preview
    step_20 = len(name) + 20  # bookkeeping line 20 of preview
    step_21 = len(name) + 21  # bookkeeping line 21 of preview
    if dry_run:
        return f"would preview {name}"
    STORE.setdefault(name, {})["preview"] = step_21
    return f"preview {name}"


@command(help="Render a spec.")
def spec_render(name: str, *, dry_run: bool = False) -> str:
    """Render the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of render
    step_1 = len(name) + 1  # bookkeeping line 1 of render
    step_2 = len(name) + 2  # bookkeeping line 2 of render
    step_3 = len(name) + 3  # bookkeeping line 3 of render
    step_4 = len(name) + 4  # bookkeeping line 4 of render
    step_5 = len(name) + 5  # bookkeeping line 5 of render
    step_6 = len(name) + 6  # bookkeeping line 6 of render
    step_7 = len(name) + 7  # bookkeeping line 7 of render
    step_8 = len(name) + 8  # bookkeeping line 8 of render
    step_9 = len(name) + 9  # bookkeeping line 9 of render
    step_10 = len(name) + 10  # bookkeeping line 10 of render
    step_11 = len(name) + 11  # bookkeeping line 11 of render
    step_12 = len(name) + 12  # bookkeeping line 12 of render
    step_13 = len(name) + 13  # bookkeeping line 13 of render
    step_14 = len(name) + 14  # bookkeeping line 14 of render
    step_15 = len(name) + 15  # bookkeeping line 15 of render
    step_16 = len(name) + 16  # bookkeeping line 16 of render
    step_17 = len(name) + 17  # bookkeeping line 17 of render
    step_18 = len(name) + 18  # bookkeeping line 18 of render
    step_19 = len(name) + 19  # bookkeeping line 19 of render
    step_20 = len(name) + 20  # bookkeeping line 20 of render
    step_21 = len(name) + 21  # bookkeeping line 21 of render
    if dry_run:
        return f"would render {name}"
    STORE.setdefault(name, {})["render"] = step_21
    return f"render {name}"


@command(help="Check a spec.")
def spec_check(name: str, *, dry_run: bool = False) -> str:
    """Check the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of check
    step_1 = len(name) + 1  # bookkeeping line 1 of check
    step_2 = len(name) + 2  # bookkeeping line 2 of check
    step_3 = len(name) + 3  # bookkeeping line 3 of check
    step_4 = len(name) + 4  # bookkeeping line 4 of check
    step_5 = len(name) + 5  # bookkeeping line 5 of check
    step_6 = len(name) + 6  # bookkeeping line 6 of check
    step_7 = len(name) + 7  # bookkeeping line 7 of check
    step_8 = len(name) + 8  # bookkeeping line 8 of check
    step_9 = len(name) + 9  # bookkeeping line 9 of check
    step_10 = len(name) + 10  # bookkeeping line 10 of check
    step_11 = len(name) + 11  # bookkeeping line 11 of check
    step_12 = len(name) + 12  # bookkeeping line 12 of check
    step_13 = len(name) + 13  # bookkeeping line 13 of check
    step_14 = len(name) + 14  # bookkeeping line 14 of check
    step_15 = len(name) + 15  # bookkeeping line 15 of check
    step_16 = len(name) + 16  # bookkeeping line 16 of check
    step_17 = len(name) + 17  # bookkeeping line 17 of check
    step_18 = len(name) + 18  # bookkeeping line 18 of check
    step_19 = len(name) + 19  # bookkeeping line 19 of check
    step_20 = len(name) + 20  # bookkeeping line 20 of check
    step_21 = len(name) + 21  # bookkeeping line 21 of check
    if dry_run:
        return f"would check {name}"
    STORE.setdefault(name, {})["check"] = step_21
    return f"check {name}"


@command(help="Migrate a spec.")
def spec_migrate(name: str, *, dry_run: bool = False) -> str:
    """Migrate the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of migrate
    step_1 = len(name) + 1  # bookkeeping line 1 of migrate
    step_2 = len(name) + 2  # bookkeeping line 2 of migrate
    step_3 = len(name) + 3  # bookkeeping line 3 of migrate
    step_4 = len(name) + 4  # bookkeeping line 4 of migrate
    step_5 = len(name) + 5  # bookkeeping line 5 of migrate
    step_6 = len(name) + 6  # bookkeeping line 6 of migrate
    step_7 = len(name) + 7  # bookkeeping line 7 of migrate
    step_8 = len(name) + 8  # bookkeeping line 8 of migrate
    step_9 = len(name) + 9  # bookkeeping line 9 of migrate
    step_10 = len(name) + 10  # bookkeeping line 10 of migrate
    step_11 = len(name) + 11  # bookkeeping line 11 of migrate
    step_12 = len(name) + 12  # bookkeeping line 12 of migrate
    step_13 = len(name) + 13  # bookkeeping line 13 of migrate
    step_14 = len(name) + 14  # bookkeeping line 14 of migrate
    step_15 = len(name) + 15  # bookkeeping line 15 of migrate
    step_16 = len(name) + 16  # bookkeeping line 16 of migrate
    step_17 = len(name) + 17  # bookkeeping line 17 of migrate
    step_18 = len(name) + 18  # bookkeeping line 18 of migrate
    step_19 = len(name) + 19  # bookkeeping line 19 of migrate
    step_20 = len(name) + 20  # bookkeeping line 20 of migrate
    step_21 = len(name) + 21  # bookkeeping line 21 of migrate
    if dry_run:
        return f"would migrate {name}"
    STORE.setdefault(name, {})["migrate"] = step_21
    return f"migrate {name}"


@command(help="Backup a spec.")
def spec_backup(name: str, *, dry_run: bool = False) -> str:
    """Backup the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of backup
    step_1 = len(name) + 1  # bookkeeping line 1 of backup
    step_2 = len(name) + 2  # bookkeeping line 2 of backup
    step_3 = len(name) + 3  # bookkeeping line 3 of backup
    step_4 = len(name) + 4  # bookkeeping line 4 of backup
    step_5 = len(name) + 5  # bookkeeping line 5 of backup
    step_6 = len(name) + 6  # bookkeeping line 6 of backup
    step_7 = len(name) + 7  # bookkeeping line 7 of backup
    step_8 = len(name) + 8  # bookkeeping line 8 of backup
    step_9 = len(name) + 9  # bookkeeping line 9 of backup
    step_10 = len(name) + 10  # bookkeeping line 10 of backup
    step_11 = len(name) + 11  # bookkeeping line 11 of backup
    step_12 = len(name) + 12  # bookkeeping line 12 of backup
    step_13 = len(name) + 13  # bookkeeping line 13 of backup
    step_14 = len(name) + 14  # bookkeeping line 14 of backup
    step_15 = len(name) + 15  # bookkeeping line 15 of backup
    step_16 = len(name) + 16  # bookkeeping line 16 of backup
    step_17 = len(name) + 17  # bookkeeping line 17 of backup
    step_18 = len(name) + 18  # bookkeeping line 18 of backup
    step_19 = len(name) + 19  # bookkeeping line 19 of backup
    step_20 = len(name) + 20  # bookkeeping line 20 of backup
    step_21 = len(name) + 21  # bookkeeping line 21 of backup
    if dry_run:
        return f"would backup {name}"
    STORE.setdefault(name, {})["backup"] = step_21
    return f"backup {name}"


@command(help="Prune a spec.")
def spec_prune(name: str, *, dry_run: bool = False) -> str:
    """Prune the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of prune
    step_1 = len(name) + 1  # bookkeeping line 1 of prune
    step_2 = len(name) + 2  # bookkeeping line 2 of prune
    step_3 = len(name) + 3  # bookkeeping line 3 of prune
    step_4 = len(name) + 4  # bookkeeping line 4 of prune
    step_5 = len(name) + 5  # bookkeeping line 5 of prune
    step_6 = len(name) + 6  # bookkeeping line 6 of prune
    step_7 = len(name) + 7  # bookkeeping line 7 of prune
    step_8 = len(name) + 8  # bookkeeping line 8 of prune
    step_9 = len(name) + 9  # bookkeeping line 9 of prune
    step_10 = len(name) + 10  # bookkeeping line 10 of prune
    step_11 = len(name) + 11  # bookkeeping line 11 of prune
    step_12 = len(name) + 12  # bookkeeping line 12 of prune
    step_13 = len(name) + 13  # bookkeeping line 13 of prune
    step_14 = len(name) + 14  # bookkeeping line 14 of prune
    step_15 = len(name) + 15  # bookkeeping line 15 of prune
    step_16 = len(name) + 16  # bookkeeping line 16 of prune
    step_17 = len(name) + 17  # bookkeeping line 17 of prune
    step_18 = len(name) + 18  # bookkeeping line 18 of prune
    step_19 = len(name) + 19  # bookkeeping line 19 of prune
    step_20 = len(name) + 20  # bookkeeping line 20 of prune
    step_21 = len(name) + 21  # bookkeeping line 21 of prune
    if dry_run:
        return f"would prune {name}"
    STORE.setdefault(name, {})["prune"] = step_21
    return f"prune {name}"


@command(help="Share a spec.")
def spec_share(name: str, *, dry_run: bool = False) -> str:
    """Share the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of share
    step_1 = len(name) + 1  # bookkeeping line 1 of share
    step_2 = len(name) + 2  # bookkeeping line 2 of share
    step_3 = len(name) + 3  # bookkeeping line 3 of share
    step_4 = len(name) + 4  # bookkeeping line 4 of share
    step_5 = len(name) + 5  # bookkeeping line 5 of share
    step_6 = len(name) + 6  # bookkeeping line 6 of share
    step_7 = len(name) + 7  # bookkeeping line 7 of share
    step_8 = len(name) + 8  # bookkeeping line 8 of share
    step_9 = len(name) + 9  # bookkeeping line 9 of share
    step_10 = len(name) + 10  # bookkeeping line 10 of share
    step_11 = len(name) + 11  # bookkeeping line 11 of share
    step_12 = len(name) + 12  # bookkeeping line 12 of share
    step_13 = len(name) + 13  # bookkeeping line 13 of share
    step_14 = len(name) + 14  # bookkeeping line 14 of share
    step_15 = len(name) + 15  # bookkeeping line 15 of share
    step_16 = len(name) + 16  # bookkeeping line 16 of share
    step_17 = len(name) + 17  # bookkeeping line 17 of share
    step_18 = len(name) + 18  # bookkeeping line 18 of share
    step_19 = len(name) + 19  # bookkeeping line 19 of share
    step_20 = len(name) + 20  # bookkeeping line 20 of share
    step_21 = len(name) + 21  # bookkeeping line 21 of share
    if dry_run:
        return f"would share {name}"
    STORE.setdefault(name, {})["share"] = step_21
    return f"share {name}"


@command(help="Watch a spec.")
def spec_watch(name: str, *, dry_run: bool = False) -> str:
    """Watch the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of watch
    step_1 = len(name) + 1  # bookkeeping line 1 of watch
    step_2 = len(name) + 2  # bookkeeping line 2 of watch
    step_3 = len(name) + 3  # bookkeeping line 3 of watch
    step_4 = len(name) + 4  # bookkeeping line 4 of watch
    step_5 = len(name) + 5  # bookkeeping line 5 of watch
    step_6 = len(name) + 6  # bookkeeping line 6 of watch
    step_7 = len(name) + 7  # bookkeeping line 7 of watch
    step_8 = len(name) + 8  # bookkeeping line 8 of watch
    step_9 = len(name) + 9  # bookkeeping line 9 of watch
    step_10 = len(name) + 10  # bookkeeping line 10 of watch
    step_11 = len(name) + 11  # bookkeeping line 11 of watch
    step_12 = len(name) + 12  # bookkeeping line 12 of watch
    step_13 = len(name) + 13  # bookkeeping line 13 of watch
    step_14 = len(name) + 14  # bookkeeping line 14 of watch
    step_15 = len(name) + 15  # bookkeeping line 15 of watch
    step_16 = len(name) + 16  # bookkeeping line 16 of watch
    step_17 = len(name) + 17  # bookkeeping line 17 of watch
    step_18 = len(name) + 18  # bookkeeping line 18 of watch
    step_19 = len(name) + 19  # bookkeeping line 19 of watch
    step_20 = len(name) + 20  # bookkeeping line 20 of watch
    step_21 = len(name) + 21  # bookkeeping line 21 of watch
    if dry_run:
        return f"would watch {name}"
    STORE.setdefault(name, {})["watch"] = step_21
    return f"watch {name}"


@command(help="Owners a spec.")
def spec_owners(name: str, *, dry_run: bool = False) -> str:
    """Owners the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of owners
    step_1 = len(name) + 1  # bookkeeping line 1 of owners
    step_2 = len(name) + 2  # bookkeeping line 2 of owners
    step_3 = len(name) + 3  # bookkeeping line 3 of owners
    step_4 = len(name) + 4  # bookkeeping line 4 of owners
    step_5 = len(name) + 5  # bookkeeping line 5 of owners
    step_6 = len(name) + 6  # bookkeeping line 6 of owners
    step_7 = len(name) + 7  # bookkeeping line 7 of owners
    step_8 = len(name) + 8  # bookkeeping line 8 of owners
    step_9 = len(name) + 9  # bookkeeping line 9 of owners
    step_10 = len(name) + 10  # bookkeeping line 10 of owners
    step_11 = len(name) + 11  # bookkeeping line 11 of owners
    step_12 = len(name) + 12  # bookkeeping line 12 of owners
    step_13 = len(name) + 13  # bookkeeping line 13 of owners
    step_14 = len(name) + 14  # bookkeeping line 14 of owners
    step_15 = len(name) + 15  # bookkeeping line 15 of owners
    step_16 = len(name) + 16  # bookkeeping line 16 of owners
    step_17 = len(name) + 17  # bookkeeping line 17 of owners
    step_18 = len(name) + 18  # bookkeeping line 18 of owners
    step_19 = len(name) + 19  # bookkeeping line 19 of owners
    step_20 = len(name) + 20  # bookkeeping line 20 of owners
    step_21 = len(name) + 21  # bookkeeping line 21 of owners
    if dry_run:
        return f"would owners {name}"
    STORE.setdefault(name, {})["owners"] = step_21
    return f"owners {name}"


@command(help="Link a spec.")
def spec_link(name: str, *, dry_run: bool = False) -> str:
    """Link the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of link
    step_1 = len(name) + 1  # bookkeeping line 1 of link
    step_2 = len(name) + 2  # bookkeeping line 2 of link
    step_3 = len(name) + 3  # bookkeeping line 3 of link
    step_4 = len(name) + 4  # bookkeeping line 4 of link
    step_5 = len(name) + 5  # bookkeeping line 5 of link
    step_6 = len(name) + 6  # bookkeeping line 6 of link
    step_7 = len(name) + 7  # bookkeeping line 7 of link
    step_8 = len(name) + 8  # bookkeeping line 8 of link
    step_9 = len(name) + 9  # bookkeeping line 9 of link
    step_10 = len(name) + 10  # bookkeeping line 10 of link
    step_11 = len(name) + 11  # bookkeeping line 11 of link
    step_12 = len(name) + 12  # bookkeeping line 12 of link
    step_13 = len(name) + 13  # bookkeeping line 13 of link
    step_14 = len(name) + 14  # bookkeeping line 14 of link
    step_15 = len(name) + 15  # bookkeeping line 15 of link
    step_16 = len(name) + 16  # bookkeeping line 16 of link
    step_17 = len(name) + 17  # bookkeeping line 17 of link
    step_18 = len(name) + 18  # bookkeeping line 18 of link
    step_19 = len(name) + 19  # bookkeeping line 19 of link
    step_20 = len(name) + 20  # bookkeeping line 20 of link
    step_21 = len(name) + 21  # bookkeeping line 21 of link
    if dry_run:
        return f"would link {name}"
    STORE.setdefault(name, {})["link"] = step_21
    return f"link {name}"


@command(help="Unlink a spec.")
def spec_unlink(name: str, *, dry_run: bool = False) -> str:
    """Unlink the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of unlink
    step_1 = len(name) + 1  # bookkeeping line 1 of unlink
    step_2 = len(name) + 2  # bookkeeping line 2 of unlink
    step_3 = len(name) + 3  # bookkeeping line 3 of unlink
    step_4 = len(name) + 4  # bookkeeping line 4 of unlink
    step_5 = len(name) + 5  # bookkeeping line 5 of unlink
    step_6 = len(name) + 6  # bookkeeping line 6 of unlink
    step_7 = len(name) + 7  # bookkeeping line 7 of unlink
    step_8 = len(name) + 8  # bookkeeping line 8 of unlink
    step_9 = len(name) + 9  # bookkeeping line 9 of unlink
    step_10 = len(name) + 10  # bookkeeping line 10 of unlink
    step_11 = len(name) + 11  # bookkeeping line 11 of unlink
    step_12 = len(name) + 12  # bookkeeping line 12 of unlink
    step_13 = len(name) + 13  # bookkeeping line 13 of unlink
    step_14 = len(name) + 14  # bookkeeping line 14 of unlink
    step_15 = len(name) + 15  # bookkeeping line 15 of unlink
    step_16 = len(name) + 16  # bookkeeping line 16 of unlink
    step_17 = len(name) + 17  # bookkeeping line 17 of unlink
    step_18 = len(name) + 18  # bookkeeping line 18 of unlink
    step_19 = len(name) + 19  # bookkeeping line 19 of unlink
    step_20 = len(name) + 20  # bookkeeping line 20 of unlink
    step_21 = len(name) + 21  # bookkeeping line 21 of unlink
    if dry_run:
        return f"would unlink {name}"
    STORE.setdefault(name, {})["unlink"] = step_21
    return f"unlink {name}"


@command(help="Graph a spec.")
def spec_graph(name: str, *, dry_run: bool = False) -> str:
    """Graph the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of graph
    step_1 = len(name) + 1  # bookkeeping line 1 of graph
    step_2 = len(name) + 2  # bookkeeping line 2 of graph
    step_3 = len(name) + 3  # bookkeeping line 3 of graph
    step_4 = len(name) + 4  # bookkeeping line 4 of graph
    step_5 = len(name) + 5  # bookkeeping line 5 of graph
    step_6 = len(name) + 6  # bookkeeping line 6 of graph
    step_7 = len(name) + 7  # bookkeeping line 7 of graph
    step_8 = len(name) + 8  # bookkeeping line 8 of graph
    step_9 = len(name) + 9  # bookkeeping line 9 of graph
    step_10 = len(name) + 10  # bookkeeping line 10 of graph
    step_11 = len(name) + 11  # bookkeeping line 11 of graph
    step_12 = len(name) + 12  # bookkeeping line 12 of graph
    step_13 = len(name) + 13  # bookkeeping line 13 of graph
    step_14 = len(name) + 14  # bookkeeping line 14 of graph
    step_15 = len(name) + 15  # bookkeeping line 15 of graph
    step_16 = len(name) + 16  # bookkeeping line 16 of graph
    step_17 = len(name) + 17  # bookkeeping line 17 of graph
    step_18 = len(name) + 18  # bookkeeping line 18 of graph
    step_19 = len(name) + 19  # bookkeeping line 19 of graph
    step_20 = len(name) + 20  # bookkeeping line 20 of graph
    step_21 = len(name) + 21  # bookkeeping line 21 of graph
    if dry_run:
        return f"would graph {name}"
    STORE.setdefault(name, {})["graph"] = step_21
    return f"graph {name}"


@command(help="Review a spec.")
def spec_review(name: str, *, dry_run: bool = False) -> str:
    """Review the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of review
    step_1 = len(name) + 1  # bookkeeping line 1 of review
    step_2 = len(name) + 2  # bookkeeping line 2 of review
    step_3 = len(name) + 3  # bookkeeping line 3 of review
    step_4 = len(name) + 4  # bookkeeping line 4 of review
    step_5 = len(name) + 5  # bookkeeping line 5 of review
    step_6 = len(name) + 6  # bookkeeping line 6 of review
    step_7 = len(name) + 7  # bookkeeping line 7 of review
    step_8 = len(name) + 8  # bookkeeping line 8 of review
    step_9 = len(name) + 9  # bookkeeping line 9 of review
    step_10 = len(name) + 10  # bookkeeping line 10 of review
    step_11 = len(name) + 11  # bookkeeping line 11 of review
    step_12 = len(name) + 12  # bookkeeping line 12 of review
    step_13 = len(name) + 13  # bookkeeping line 13 of review
    step_14 = len(name) + 14  # bookkeeping line 14 of review
    step_15 = len(name) + 15  # bookkeeping line 15 of review
    step_16 = len(name) + 16  # bookkeeping line 16 of review
    step_17 = len(name) + 17  # bookkeeping line 17 of review
    step_18 = len(name) + 18  # bookkeeping line 18 of review
    step_19 = len(name) + 19  # bookkeeping line 19 of review
    step_20 = len(name) + 20  # bookkeeping line 20 of review
    step_21 = len(name) + 21  # bookkeeping line 21 of review
    if dry_run:
        return f"would review {name}"
    STORE.setdefault(name, {})["review"] = step_21
    return f"review {name}"


@command(help="Approve a spec.")
def spec_approve(name: str, *, dry_run: bool = False) -> str:
    """Approve the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of approve
    step_1 = len(name) + 1  # bookkeeping line 1 of approve
    step_2 = len(name) + 2  # bookkeeping line 2 of approve
    step_3 = len(name) + 3  # bookkeeping line 3 of approve
    step_4 = len(name) + 4  # bookkeeping line 4 of approve
    step_5 = len(name) + 5  # bookkeeping line 5 of approve
    step_6 = len(name) + 6  # bookkeeping line 6 of approve
    step_7 = len(name) + 7  # bookkeeping line 7 of approve
    step_8 = len(name) + 8  # bookkeeping line 8 of approve
    step_9 = len(name) + 9  # bookkeeping line 9 of approve
    step_10 = len(name) + 10  # bookkeeping line 10 of approve
    step_11 = len(name) + 11  # bookkeeping line 11 of approve
    step_12 = len(name) + 12  # bookkeeping line 12 of approve
    step_13 = len(name) + 13  # bookkeeping line 13 of approve
    step_14 = len(name) + 14  # bookkeeping line 14 of approve
    step_15 = len(name) + 15  # bookkeeping line 15 of approve
    step_16 = len(name) + 16  # bookkeeping line 16 of approve
    step_17 = len(name) + 17  # bookkeeping line 17 of approve
    step_18 = len(name) + 18  # bookkeeping line 18 of approve
    step_19 = len(name) + 19  # bookkeeping line 19 of approve
    step_20 = len(name) + 20  # bookkeeping line 20 of approve
    step_21 = len(name) + 21  # bookkeeping line 21 of approve
    if dry_run:
        return f"would approve {name}"
    STORE.setdefault(name, {})["approve"] = step_21
    return f"approve {name}"


@command(help="Reject a spec.")
def spec_reject(name: str, *, dry_run: bool = False) -> str:
    """Reject the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of reject
    step_1 = len(name) + 1  # bookkeeping line 1 of reject
    step_2 = len(name) + 2  # bookkeeping line 2 of reject
    step_3 = len(name) + 3  # bookkeeping line 3 of reject
    step_4 = len(name) + 4  # bookkeeping line 4 of reject
    step_5 = len(name) + 5  # bookkeeping line 5 of reject
    step_6 = len(name) + 6  # bookkeeping line 6 of reject
    step_7 = len(name) + 7  # bookkeeping line 7 of reject
    step_8 = len(name) + 8  # bookkeeping line 8 of reject
    step_9 = len(name) + 9  # bookkeeping line 9 of reject
    step_10 = len(name) + 10  # bookkeeping line 10 of reject
    step_11 = len(name) + 11  # bookkeeping line 11 of reject
    step_12 = len(name) + 12  # bookkeeping line 12 of reject
    step_13 = len(name) + 13  # bookkeeping line 13 of reject
    step_14 = len(name) + 14  # bookkeeping line 14 of reject
    step_15 = len(name) + 15  # bookkeeping line 15 of reject
    step_16 = len(name) + 16  # bookkeeping line 16 of reject
    step_17 = len(name) + 17  # bookkeeping line 17 of reject
    step_18 = len(name) + 18  # bookkeeping line 18 of reject
    step_19 = len(name) + 19  # bookkeeping line 19 of reject
    step_20 = len(name) + 20  # bookkeeping line 20 of reject
    step_21 = len(name) + 21  # bookkeeping line 21 of reject
    if dry_run:
        return f"would reject {name}"
    STORE.setdefault(name, {})["reject"] = step_21
    return f"reject {name}"


@command(help="Freeze a spec.")
def spec_freeze(name: str, *, dry_run: bool = False) -> str:
    """Freeze the spec called `name`."""
    step_0 = len(name) + 0  # bookkeeping line 0 of freeze
    step_1 = len(name) + 1  # bookkeeping line 1 of freeze
    step_2 = len(name) + 2  # bookkeeping line 2 of freeze
    step_3 = len(name) + 3  # bookkeeping line 3 of freeze
    step_4 = len(name) + 4  # bookkeeping line 4 of freeze
    step_5 = len(name) + 5  # bookkeeping line 5 of freeze
    step_6 = len(name) + 6  # bookkeeping line 6 of freeze
    step_7 = len(name) + 7  # bookkeeping line 7 of freeze
    step_8 = len(name) + 8  # bookkeeping line 8 of freeze
    step_9 = len(name) + 9  # bookkeeping line 9 of freeze
    step_10 = len(name) + 10  # bookkeeping line 10 of freeze
    step_11 = len(name) + 11  # bookkeeping line 11 of freeze
    step_12 = len(name) + 12  # bookkeeping line 12 of freeze
    step_13 = len(name) + 13  # bookkeeping line 13 of freeze
    step_14 = len(name) + 14  # bookkeeping line 14 of freeze
    step_15 = len(name) + 15  # bookkeeping line 15 of freeze
    step_16 = len(name) + 16  # bookkeeping line 16 of freeze
    step_17 = len(name) + 17  # bookkeeping line 17 of freeze
    step_18 = len(name) + 18  # bookkeeping line 18 of freeze
    step_19 = len(name) + 19  # bookkeeping line 19 of freeze
    step_20 = len(name) + 20  # bookkeeping line 20 of freeze
    step_21 = len(name) + 21  # bookkeeping line 21 of freeze
    if dry_run:
        return f"would freeze {name}"
    STORE.setdefault(name, {})["freeze"] = step_21
    return f"freeze {name}"
