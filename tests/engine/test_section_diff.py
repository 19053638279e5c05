"""A section of the context as sent at step N, split out of the saved messages, and its text
diff against the same section as sent at the step before on its branch."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine import api
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.section_diff import section_diff, section_texts


@pytest.fixture
def stepped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskFolder:
    """hello_world after three replayed steps (list_dir, read_file, write_file)."""
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    folder = api.init_sample("hello_world", into=tmp_path / "ws")
    api.run(folder.path, max_steps=3)
    return TaskFolder.open(folder.path)


def test_the_sections_put_back_together_are_the_messages_as_sent(stepped: TaskFolder) -> None:
    saved = stepped.load_saved_context(3)
    texts = section_texts(saved)
    assert list(texts) == list(saved["sections"])  # every section, in the order sent
    system, user = (m["content"] for m in saved["messages"])
    assert texts["system_prompt"] == system
    assert "".join(text for name, text in texts.items() if name != "system_prompt") == user
    assert texts["recent_actions"].startswith("recent_actions:")


def test_xml_sections_split_at_their_tags() -> None:
    saved = {
        "sections": {"system_prompt": 1, "task_frame": 1, "current_state": 1,
                     "available_actions": 1},
        "messages": [
            {"role": "system", "content": "<role>agent</role>"},
            {"role": "user", "content": "<task_context>\n<task_frame>\n<goal>x</goal>\n"
             "</task_frame>\n<current_state step=\"2\">\n</current_state>\n"
             "<tools>\n<tool>note(text)</tool>\n</tools>\n</task_context>\n"},
        ],
    }  # fmt: skip
    texts = section_texts(saved)
    assert texts["task_frame"] == "<task_frame>\n<goal>x</goal>\n</task_frame>\n"
    assert texts["current_state"] == '<current_state step="2">\n</current_state>\n'
    assert texts["available_actions"] == "<tools>\n<tool>note(text)</tool>\n</tools>\n"


def test_a_section_diffs_against_the_step_before(stepped: TaskFolder) -> None:
    shown = section_diff(stepped, 3, "recent_actions")
    assert (shown.step, shown.since, shown.name) == (3, 2, "recent_actions")
    assert shown.text == section_texts(stepped.load_saved_context(3))["recent_actions"]
    diff = shown.diff
    assert diff.lines[:2] == ("--- recent_actions at step 2", "+++ recent_actions at step 3")
    added = [line for line in diff.lines[2:] if line.startswith("+")]
    assert any("read_file" in line for line in added)  # step 2's action entered the list
    assert diff.added == len(added) and diff.note is None
    assert section_diff(stepped, 3, "system_prompt").diff.note == "no change"


def test_step_one_and_a_missing_context_are_notes(stepped: TaskFolder) -> None:
    assert section_diff(stepped, 1, "task_frame").diff.note == "the first step: nothing before"
    stepped.context_path(2).unlink()
    shown = section_diff(stepped, 3, "task_frame")
    assert shown.diff.note == "step 2 has no saved context to compare with"
    assert shown.text.startswith("task_frame:")
    with pytest.raises(ForgeError, match="step 3's saved context has no nonsense"):
        section_diff(stepped, 3, "nonsense")


def test_a_section_new_at_step_n_is_all_additions(stepped: TaskFolder) -> None:
    path = stepped.context_path(2)
    saved = yaml.safe_load(path.read_text())
    del saved["sections"]["verification_status"]  # as if step 2 had not sent it
    path.write_text(yaml.safe_dump(saved, sort_keys=False))
    diff = section_diff(stepped, 3, "verification_status").diff
    assert diff.removed == 0 and diff.added == len(diff.lines) - 3  # heads and one hunk
