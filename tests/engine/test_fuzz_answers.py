"""Fuzz what a model may answer: random text, cut-off answers, wrong fences, JSON
where YAML is asked for, huge strings, any unicode. The parser never raises and gives an action
or a reason; a real step on such an answer never raises, logs the answer as it came, and the
task takes its next step.

Each run draws new cases from a fresh seed, printed at the end of the run and with a failure;
`FORGETUI_FUZZ_SEED=N` replays run N (tests/fuzz_seed.py)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forgetui.engine.folder.catalog import ACTIONS, actions_of
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.stored_args import expanded
from forgetui.engine.llm.parse import ParsedAction, parse_text, parse_tool_call, validate_object
from forgetui.engine.step.executor import Executor
from tests.cli.conftest import without_fsync
from tests.engine.helpers import act, make_task, replay
from tests.fuzz_seed import fuzzed

T = TypeVar("T", bound=Callable[..., object])

RAN: Counter[str] = Counter()


def _fuzz(examples: int) -> Callable[[T], T]:
    """`examples` cases, drawn from the run's fuzz seed."""
    rules = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    return lambda test: fuzzed(rules(test))


@pytest.fixture(scope="module", autouse=True)
def _no_fsync() -> Iterator[None]:
    """What a step makes of an answer is proven here, not what survives a power cut."""
    with without_fsync():
        yield


@pytest.fixture(scope="module", autouse=True)
def _count() -> Iterator[None]:
    yield
    print(
        f"\nfuzz cases run: {sum(RAN.values())} ({', '.join(f'{k} {n}' for k, n in RAN.items())})"
    )


# ----------------------------------------------------------------------------- answers

# Actions a fuzzed answer may validly name: none escalates, completes or runs a command, so the
# task's next step is always the model's to take.
_SAFE = st.one_of(
    st.builds(lambda text: act("note", text=text), st.text(min_size=1, max_size=80)),
    st.builds(lambda path: act("read_file", path=path), st.sampled_from(["a.txt", "../x", "."])),
    st.just(act("list_dir", path=".")),
    st.builds(lambda pattern: act("search", pattern=pattern), st.text(min_size=1, max_size=20)),
    st.builds(
        lambda content: act("write_file", path="out.txt", content=content), st.text(max_size=200)
    ),
)
_FENCES = ("```yaml", "```", "```json", "~~~yaml", "````yaml", "```python", "```YAML", "  ```yaml")


def _yaml_block(obj: dict[str, Any]) -> str:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)


@st.composite
def valid_answers(draw: st.DrawFn) -> str:
    """A well-formed answer, fenced YAML or JSON, bare or with prose around it."""
    obj = draw(_SAFE)
    body = draw(st.sampled_from([_yaml_block(obj), json.dumps(obj), json.dumps(obj, indent=2)]))
    style = draw(st.sampled_from(["fenced", "bare", "prose"]))
    if style == "bare":
        return body
    fenced = f"```yaml\n{body.rstrip()}\n```"
    if style == "fenced":
        return fenced
    return f"{draw(st.text(max_size=60))}\n\n{fenced}\n{draw(st.text(max_size=60))}"


@st.composite
def cut_answers(draw: st.DrawFn) -> str:
    answer = draw(valid_answers())
    return answer[: draw(st.integers(0, max(0, len(answer) - 1)))]


@st.composite
def wrong_fences(draw: st.DrawFn) -> str:
    body = _yaml_block(draw(_SAFE)).rstrip()
    opening = draw(st.sampled_from(_FENCES))
    closing = draw(st.sampled_from(["```", "~~~", "``", "````", "", "```yaml"]))
    twice = draw(st.booleans())  # two blocks: one action per step
    block = f"{opening}\n{body}\n{closing}"
    return f"{block}\n{block}" if twice else block


@st.composite
def json_answers(draw: st.DrawFn) -> str:
    """JSON where YAML is asked for: whole, cut, with trailing commas or single quotes."""
    text = json.dumps(draw(_SAFE), ensure_ascii=draw(st.booleans()))
    damage = draw(st.sampled_from(["none", "cut", "comma", "quotes", "fenced-as-yaml", "escape"]))
    if damage == "escape":  # JSON escapes Python can hold but UTF-8 cannot (lone surrogates)
        escape = draw(st.sampled_from(["\\ud800", "\\udfff", "\\u0000", "\\u2028", "\\ud83d"]))
        return json.dumps({"action": "note", "args": {"text": "x"}}).replace('"x"', f'"{escape}"')
    if damage == "cut":
        return text[: draw(st.integers(0, len(text) - 1))]
    if damage == "comma":
        return text[:-1] + ",}"
    if damage == "quotes":
        return text.replace('"', "'")
    if damage == "fenced-as-yaml":
        return f"```yaml\n{text}\n```"
    return text


@st.composite
def huge_answers(draw: st.DrawFn) -> str:
    size = draw(st.integers(20_000, 100_000))
    kind = draw(st.sampled_from(["noise", "content", "many-blocks", "deep"]))
    if kind == "content":  # a valid write_file whose content is huge
        return "```yaml\n" + _yaml_block(act("write_file", path="out.txt", content="y" * size))
    if kind == "many-blocks":
        return "```yaml\naction: note\nargs: {text: a}\n```\n" * (size // 40)
    if kind == "deep":
        depth = size // 100
        return "```yaml\naction: note\nargs: " + "[" * depth + "]" * depth + "\n```"
    return draw(st.sampled_from(["x", "action: ", "```", "é\u2028", "{"])) * (size // 4)


small_answers = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
    valid_answers(),
    cut_answers(),
    wrong_fences(),
    json_answers(),
)
answers = st.one_of(small_answers, huge_answers())
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=30)),
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=8), kids, max_size=4)
    ),
    max_leaves=10,
)


def _well_formed(parsed: ParsedAction) -> None:
    """An action with its checked arguments, or a reason: never both, never neither."""
    if parsed.action is None:
        assert isinstance(parsed.error, str) and parsed.error.strip(), parsed
        assert parsed.args == {}
    else:
        assert parsed.error is None and parsed.action in ACTIONS, parsed
        assert isinstance(parsed.args, dict)


# ----------------------------------------------------------------------------- the parser


@_fuzz(400)
@given(text=small_answers)
def test_parsing_any_answer_gives_an_action_or_a_reason(text: str) -> None:
    RAN["parse_text"] += 1
    _well_formed(parse_text(text))
    _well_formed(parse_text(text, actions_of("execution")))


@_fuzz(25)  # ~0.2 s a case
@given(text=huge_answers())
def test_parsing_a_huge_answer_gives_an_action_or_a_reason(text: str) -> None:
    RAN["parse_text (huge)"] += 1
    _well_formed(parse_text(text, actions_of("execution")))


@_fuzz(200)
@given(
    name=st.one_of(st.sampled_from(sorted(ACTIONS)), st.text(max_size=20)),
    arguments=st.one_of(st.none(), st.text(max_size=200), json_values.map(json.dumps), answers),
)
def test_parsing_any_tool_call_gives_an_action_or_a_reason(name: str, arguments: Any) -> None:
    RAN["parse_tool_call"] += 1
    _well_formed(parse_tool_call(name, arguments))


@_fuzz(200)
@given(
    obj=st.dictionaries(
        st.one_of(st.sampled_from(["action", "args", "path", "text"]), st.text(max_size=8)),
        json_values,
        max_size=5,
    )
)
def test_validating_any_mapping_gives_an_action_or_a_reason(obj: dict[str, Any]) -> None:
    RAN["validate_object"] += 1
    _well_formed(validate_object(obj))


# ----------------------------------------------------------------------------- a real step


@_fuzz(100)
@given(text=answers)
@example(text='{"action": "note", "args": {"text": "\\ud800"}}')  # a lone surrogate once loaded
@example(text="```yaml\naction: note\nargs: " + "[" * 2000 + "]" * 2000 + "\n```")
def test_a_step_on_any_answer_is_recorded_and_the_task_steps_on(text: str) -> None:
    RAN["step"] += 1
    root = Path(tempfile.mkdtemp(prefix="fuzz-answer-"))
    try:
        folder = make_task(root, [{"text": text}, act("note", text="after the fuzzed answer")])
        with Executor(folder, replay(folder)) as executor:
            first = executor.step()
            second = executor.step()
        records = list(folder.log.iter_records())
        intents = [r for r in records if isinstance(r, IntentRecord)]
        results = [r for r in records if isinstance(r, ResultRecord)]
        assert [r.step for r in intents] == [r.step for r in results] == [1, 2]
        # the answer as it came, whole (a long one kept beside the log, by reference)
        assert expanded(intents[0].raw_response, folder.path) == text
        assert first.step == 1 and results[0].result == first.result, first
        if first.action is None:  # unparsed: the reason is what the model reads next
            assert results[0].result == "failure" and results[0].summary.strip()
        assert (second.step, second.action, second.result) == (2, "note", "success"), second
        state = folder.load_state()
        assert state.step == 2 and state.pending_escalation is None, state.status
    finally:
        shutil.rmtree(root, ignore_errors=True)
