"""``tepa-bench``: run, demo, list, and the scenario/command registry."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench import cli, runner, scenarios
from tepa_bench.agent import parse_prompt
from tepa_bench.registry import (
    CommandEntry,
    RunOptions,
    ScenarioEntry,
    get_scenario,
    register_command,
    register_scenario,
    unregister_scenario,
)
from tests.support.fake_openai import FakeOpenAI, Text, last_user_text

from .test_bench_report import check_contract

FAST = ["--no-progress", "--workers", "1", "--storage", "memory"]


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "drift" in out and "filedrift" in out and "tepa-rev" in out


def test_run_writes_the_json_and_the_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        [
            "run",
            "filedrift",
            "--seeds",
            "2",
            "--methods",
            "no-memory,append-only,tepa-rev",
            "--out",
            str(tmp_path),
            "--set",
            "tasks=2",
            "--set",
            "acquisition=4",
            "--set",
            "reversal=6",
            *FAST,
        ]
    )
    assert code == 0
    result = json.loads((tmp_path / "filedrift.json").read_text())
    check_contract(result)
    assert result["seeds"] == 2
    assert list(result["methods"]) == ["no-memory", "append-only", "tepa-rev"]
    assert result["config"]["storage"] == "memory"
    assert result["config"]["reversal"] == 6
    assert (tmp_path / "filedrift.png").exists()
    out = capsys.readouterr().out
    assert "append-only" in out and "reversal [95% CI]" in out


def test_bad_arguments_exit_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "drift", "--methods", "magic", "--out", str(tmp_path), *FAST]) == 2
    assert "unknown method" in capsys.readouterr().err
    assert cli.main(["run", "drift", "--set", "nonsense", "--out", str(tmp_path), *FAST]) == 2
    assert cli.main(["run", "drift", "--set", "colour=3", "--out", str(tmp_path), *FAST]) == 2
    with pytest.raises(SystemExit):
        cli.main(["run", "no-such-scenario"])


def test_demo_runs_every_demo_scenario_in_quick_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "QUICK_SIZES", {"tasks": 1, "acquisition": 3, "reversal": 4})
    monkeypatch.setattr(scenarios, "QUICK_SEEDS", 2)
    monkeypatch.setattr(cli, "scenario_names", lambda: ["drift", "filedrift"])
    assert cli.main(["demo", "--out", str(tmp_path), *FAST]) == 0
    for name in ("drift", "filedrift"):
        result = json.loads((tmp_path / f"{name}.json").read_text())
        check_contract(result)
        assert result["config"]["quick"] is True
        assert result["seeds"] == 2
    assert "demo finished" in capsys.readouterr().out


def test_openai_agent_through_the_cli(tmp_path: Path, openai_env: FakeOpenAI) -> None:
    """OPENAI_API_KEY and OPENAI_BASE_URL point ChatOpenAI at the local server."""

    def follow(request: dict[str, Any]) -> Text:
        view = parse_prompt(last_user_text(request))
        return Text(f"ACTION: {view.best() or view.actions[0]}")

    openai_env.handler = follow
    code = cli.main(
        [
            "run",
            "drift",
            "--agent",
            "openai",
            "--seeds",
            "1",
            "--methods",
            "tepa-rev",
            "--set",
            "tasks=1",
            "--set",
            "acquisition=3",
            "--set",
            "reversal=4",
            "--out",
            str(tmp_path),
            *FAST,
        ]
    )
    assert code == 0
    assert len(openai_env.chat_requests) == 7
    assert "Possible actions:" in last_user_text(openai_env.chat_requests[-1])
    result = json.loads((tmp_path / "drift.json").read_text())
    assert result["config"]["agent"] == "openai"
    assert result["config"]["explorations_per_seed"]["tepa-rev"] == 0  # every reply was valid


@pytest.fixture
def toy_scenario() -> Any:
    seen: dict[str, Any] = {}

    def run(options: RunOptions) -> dict[str, Any]:
        seen["options"] = options
        return {
            "scenario": "toy",
            "seeds": 1,
            "config": {"size": options.args.size},
            "methods": {},
            "comparisons": [],
        }

    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("--size", type=int, default=5)

    entry = register_scenario(
        ScenarioEntry(
            "toy",
            "a toy",
            run,
            table=lambda r: f"toy table {r['config']['size']}",
            plot=lambda r, p: None,
            demo=False,
            configure=configure,
        )
    )
    yield seen
    unregister_scenario(entry.name)


def test_plugged_scenario_gets_its_own_arguments(
    toy_scenario: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "toy", "--size", "9", "--out", str(tmp_path), "--no-progress"]) == 0
    assert json.loads((tmp_path / "toy.json").read_text())["config"] == {"size": 9}
    assert "toy table 9" in capsys.readouterr().out
    assert toy_scenario["options"].out == tmp_path
    with pytest.raises(InvalidArgumentError):
        register_scenario(ScenarioEntry("toy", "another toy", lambda o: {}))
    assert get_scenario("toy").description == "a toy"


def test_registered_command(capsys: pytest.CaptureFixture[str]) -> None:
    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("--n", type=int, default=1)

    def handler(args: argparse.Namespace) -> int:
        print(f"ran with n={args.n}")
        return 0

    register_command(CommandEntry("toycmd", "a toy command", configure, handler), replace=True)
    assert cli.main(["toycmd", "--n", "3"]) == 0
    assert "ran with n=3" in capsys.readouterr().out
    with pytest.raises(InvalidArgumentError):
        register_command(CommandEntry("run", "clash", configure, handler))
