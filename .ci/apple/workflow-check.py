#!/usr/bin/env python3
"""The workflow's Apple jobs as they must run on GitHub (run by the schema step; needs PyYAML).

    .ci/apple/workflow-check.py [--self-test]

Checks, for the macos and ios jobs of .github/workflows/ci.yml: a matrix of named Xcodes whose
Swifts are the oldest supported (.ci/steps/swift-versions) and the newest (the Linux jobs'
swift:X image), not fail-fast, on the matrix's runner; the Xcode selected from the matrix and
checked by .ci/apple/xcode-check; every test step (`swift test`, .ci/steps/ios-simulator) that
follows another step after the check runs even when that one failed (`!cancelled()`); the logs and results uploaded `if: always()`. And that each suite of
RunsAlone.suites runs alone in both jobs (a macOS step `swift test --filter NAME ...` with
CASSETTE_ALONE: NAME; `for suite in ...; do` in .ci/steps/ios-simulator), which uses the
committed scheme, whose test targets are exactly CassetteFormatsTests and CassetteTests.
"""
import re
import sys
import xml.etree.ElementTree as ElementTree

import yaml

SCHEME = ".swiftpm/xcode/xcshareddata/xcschemes/Cassette-iOS-Tests.xcscheme"


def problems(workflow, swift_versions_script, runs_alone, ios_step, scheme):
    found = []
    supported = re.findall(r'"(\d+\.\d+) \w+"', re.search(r"supported=\(([^)]*)\)", swift_versions_script).group(1))
    newest = str(workflow["jobs"]["checks"].get("container", "")).removeprefix("swift:")
    expected = sorted({min(supported, key=lambda v: tuple(map(int, v.split(".")))), newest})
    for name in ("macos", "ios"):
        job = workflow["jobs"][name]
        strategy = job.get("strategy", {})
        include = strategy.get("matrix", {}).get("include", [])
        swifts = sorted(str(entry.get("swift")) for entry in include)
        if swifts != expected or any(not entry.get("xcode") or not entry.get("runner") for entry in include):
            found.append(f"{name}: the matrix must name an xcode and a runner for Swift {expected} (oldest and newest supported); it has {include}")
        if strategy.get("fail-fast") is not False or job.get("runs-on") != "${{ matrix.runner }}":
            found.append(f"{name}: fail-fast: false and runs-on: ${{{{ matrix.runner }}}}")
        steps = job.get("steps", [])
        select = [i for i, step in enumerate(steps) if str(step.get("uses", "")).startswith("maxim-lobanov/setup-xcode")]
        check = [i for i, step in enumerate(steps) if step.get("run") == ".ci/apple/xcode-check ${{ matrix.swift }}"]
        if len(select) != 1 or steps[select[0]].get("with", {}).get("xcode-version") != "${{ matrix.xcode }}" or \
                len(check) != 1 or check[0] < select[0]:
            found.append(f"{name}: setup-xcode with xcode-version ${{{{ matrix.xcode }}}}, then .ci/apple/xcode-check ${{{{ matrix.swift }}}}")
            continue
        uploads = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact")]
        if len(uploads) != 1 or uploads[0].get("if") != "always()":
            found.append(f"{name}: one upload-artifact step of the logs and results, if: always()")
        after = steps[check[0] + 1:]
        tests = [i for i, step in enumerate(after) if re.match(r"swift test |\.ci/steps/ios-simulator$", str(step.get("run", "")))]
        if not tests:
            found.append(f"{name}: no test step after the Xcode check")
        for step in (after[i] for i in tests if any("run" in before for before in after[:i])):
            if "!cancelled()" not in str(step.get("if", "")):
                found.append(f"{name}: '{step.get('name', step.get('run'))}' must run after a failed step before it (if: !cancelled())")
    alone = re.search(r"static let suites = \[([^\]]*)\]", runs_alone)
    suites = re.findall(r'"(\w+)"', alone.group(1)) if alone else []
    if not suites:
        found.append("RunsAlone.suites (Tests/CassetteTestSupport/RunsAlone.swift) names no suite")
    macos = [step for step in workflow["jobs"]["macos"].get("steps", []) if "CASSETTE_ALONE" in (step.get("env") or {})]
    if sorted(step["env"]["CASSETTE_ALONE"] for step in macos) != sorted(suites) or any(
            not str(step.get("run")).startswith(f"swift test --filter {step['env']['CASSETTE_ALONE']} ") for step in macos):
        found.append(f"the macOS job must run each of {suites} alone: a step 'swift test --filter NAME ...' with CASSETTE_ALONE: NAME")
    if f"for suite in {' '.join(suites)}; do" not in ios_step:
        found.append(f".ci/steps/ios-simulator must run each of {suites} alone ('for suite in {' '.join(suites)}; do')")
    testables = sorted(ref.get("BlueprintName") for ref in scheme.iter("BuildableReference") if ref.get("BlueprintName"))
    if testables != ["CassetteFormatsTests", "CassetteFormatsTests", "CassetteTests", "CassetteTests"] or \
            "-scheme Cassette-iOS-Tests" not in ios_step or "Cassette-Package" in ios_step:
        found.append(f"{SCHEME} must build and test CassetteFormatsTests and CassetteTests alone, and ios-simulator use it; it names {testables}")
    return found, suites


def inputs():
    return (yaml.safe_load(open(".github/workflows/ci.yml")), open(".ci/steps/swift-versions").read(),
            open("Tests/CassetteTestSupport/RunsAlone.swift").read(), open(".ci/steps/ios-simulator").read(),
            ElementTree.parse(SCHEME))


def self_test():
    """Each kind of mistake, made in a copy of the real files, is found; the real files pass."""
    import copy

    def macos_test(workflow):
        return next(step for step in workflow["jobs"]["macos"]["steps"] if str(step.get("run", "")).startswith("swift test "))

    def upload(workflow, job):
        return next(step for step in workflow["jobs"][job]["steps"] if "upload-artifact" in str(step.get("uses", "")))

    mistakes = {
        "a moving Xcode": lambda w, *_: w["jobs"]["ios"].update({"runs-on": "macos-latest"}),
        "the oldest Swift left out": lambda w, *_: w["jobs"]["macos"]["strategy"]["matrix"]["include"].pop(0),
        "a test step skipped after a failure": lambda w, *_: macos_test(w).pop("if"),
        "results kept only on failure": lambda w, *_: upload(w, "ios").update({"if": "failure()"}),
        "the Xcode not checked": lambda w, *_: w["jobs"]["macos"]["steps"].pop(2),
    }
    real = inputs()
    assert problems(*real)[0] == [], problems(*real)[0]
    for mistake, make in mistakes.items():
        changed = copy.deepcopy(real[0])
        make(changed)
        assert problems(changed, *real[1:])[0], f"not found: {mistake}"
    executables = ElementTree.fromstring('<Scheme><BuildableReference BlueprintName="CassetteCLI"/></Scheme>')
    assert problems(real[0], real[1], real[2], real[3], ElementTree.ElementTree(executables))[0], "not found: the scheme's targets"
    assert problems(real[0], real[1], real[2], real[3].replace("Cassette-iOS-Tests", "Cassette-Package"), real[4])[0]
    print(f"workflow-check.py: the real files pass; {len(mistakes) + 2} mistakes found")


def main():
    found, suites = problems(*inputs())
    workflow = inputs()[0]
    for problem in found:
        print(f"error: .github/workflows/ci.yml: {problem}", file=sys.stderr)
    if found:
        sys.exit(1)
    include = workflow["jobs"]["macos"]["strategy"]["matrix"]["include"]
    print("Apple jobs:", ", ".join(f"Xcode {e['xcode']} (Swift {e['swift']}) on {e['runner']}" for e in include), "- alone:", suites)


if __name__ == "__main__":
    self_test() if sys.argv[1:] == ["--self-test"] else main()
