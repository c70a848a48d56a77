#!/usr/bin/env python3
"""The iPhone simulator the iOS job tests on, among those the selected Xcode can run.

    .ci/apple/simulator.py            prints the device's id (creating the device when needed)
    .ci/apple/simulator.py --self-test

A runner image carries simulator runtimes for several Xcodes; one newer than the selected
Xcode's iOS SDK is listed as available but no destination matches it ("Unable to find a
destination matching…"). So the runtime is the newest iOS runtime whose version is at most the
SDK's (`xcrun --sdk iphonesimulator --show-sdk-version`), and the device the first available
iPhone of that runtime; when the runtime has none, one is made with `simctl create` from the
newest iPhone type the runtime supports. The choice is a pure function, checked by --self-test
(the schema step runs it on Linux).
"""
import json
import subprocess
import sys


def version(text):
    """'26.0.1' -> (26, 0): a runtime runs what an SDK of the same major.minor builds."""
    return tuple(int(part) for part in text.split(".")[:2])


def choose(runtimes, devices, sdk):
    """What `simctl list runtimes --json` and `simctl list devices available --json` hold, and the
    SDK's version -> ("use", udid, runtime name) or ("create", device type id, runtime id, names).
    Raises ValueError, saying what was found, when no runtime fits."""
    ios = [
        runtime for runtime in runtimes.get("runtimes", [])
        if runtime.get("platform", "iOS") == "iOS" and ".iOS-" in runtime.get("identifier", "")
        and runtime.get("isAvailable", False) and version(runtime["version"]) <= version(sdk)
    ]
    if not ios:
        found = sorted(runtime.get("name", runtime.get("identifier", "?")) for runtime in runtimes.get("runtimes", []))
        raise ValueError(f"no available iOS runtime at or below the iOS SDK {sdk}; the image has: {', '.join(found) or 'none'}")
    runtime = max(ios, key=lambda runtime: version(runtime["version"]))
    phones = [
        device for device in devices.get("devices", {}).get(runtime["identifier"], [])
        if device.get("isAvailable", True) and device.get("name", "").startswith("iPhone")
    ]
    if phones:
        return ("use", phones[0]["udid"], f"{phones[0]['name']}, {runtime['name']}")
    types = [kind for kind in runtime.get("supportedDeviceTypes", []) if kind.get("productFamily") == "iPhone"]
    if not types:
        raise ValueError(f"{runtime['name']} has no iPhone simulator and supports no iPhone device type")
    return ("create", types[-1]["identifier"], runtime["identifier"], f"{types[-1]['name']}, {runtime['name']}")


def xcrun(*arguments):
    return subprocess.run(["xcrun", *arguments], check=True, capture_output=True, text=True).stdout.strip()


def main():
    sdk = xcrun("--sdk", "iphonesimulator", "--show-sdk-version")
    runtimes = json.loads(xcrun("simctl", "list", "runtimes", "--json"))
    devices = json.loads(xcrun("simctl", "list", "devices", "available", "--json"))
    try:
        choice = choose(runtimes, devices, sdk)
    except ValueError as error:
        sys.exit(f"error: {error}")
    if choice[0] == "use":
        print(f"iOS SDK {sdk}: {choice[2]}", file=sys.stderr)
        print(choice[1])
    else:
        _, kind, runtime, names = choice
        udid = xcrun("simctl", "create", "Cassette iPhone", kind, runtime)
        print(f"iOS SDK {sdk}: made {names} ({udid}): the runtime had no iPhone", file=sys.stderr)
        print(udid)


def self_test():
    iphone = lambda n: {"identifier": f"com.apple.CoreSimulator.SimDeviceType.iPhone-{n}", "name": f"iPhone {n}", "productFamily": "iPhone"}
    ipad = {"identifier": "com.apple.CoreSimulator.SimDeviceType.iPad-Air", "name": "iPad Air", "productFamily": "iPad"}
    def runtime(name, identifier, available=True, platform="iOS", types=()):
        return {"name": name, "identifier": f"com.apple.CoreSimulator.SimRuntime.{identifier}", "version": name.split(" ")[1],
                "platform": platform, "isAvailable": available, "supportedDeviceTypes": list(types)}
    runtimes = {"runtimes": [
        runtime("iOS 18.5", "iOS-18-5", types=[iphone(16)]),
        runtime("iOS 26.0.1", "iOS-26-0", types=[ipad, iphone(17), iphone("17-Pro")]),
        runtime("iOS 26.1", "iOS-26-1", types=[iphone(17)]),
        runtime("watchOS 26.0", "watchOS-26-0", platform="watchOS"),
    ]}
    device = lambda udid, name: {"udid": udid, "name": name, "isAvailable": True, "state": "Shutdown"}
    devices = {"devices": {
        "com.apple.CoreSimulator.SimRuntime.iOS-18-5": [device("A", "iPhone 16")],
        "com.apple.CoreSimulator.SimRuntime.iOS-26-0": [device("B", "iPad Air"), device("C", "iPhone 17")],
        "com.apple.CoreSimulator.SimRuntime.iOS-26-1": [device("D", "iPhone 17")],
    }}
    checks = [
        # The newest runtime the SDK can run, not the newest listed; an iPhone, not the iPad.
        (choose(runtimes, devices, "26.0"), ("use", "C", "iPhone 17, iOS 26.0.1")),
        (choose(runtimes, devices, "26.1"), ("use", "D", "iPhone 17, iOS 26.1")),
        (choose(runtimes, devices, "26.2"), ("use", "D", "iPhone 17, iOS 26.1")),
        # No iPhone in the runtime: one is made from the newest iPhone type it supports.
        (choose(runtimes, {"devices": {}}, "26.0"),
         ("create", "com.apple.CoreSimulator.SimDeviceType.iPhone-17-Pro", "com.apple.CoreSimulator.SimRuntime.iOS-26-0",
          "iPhone 17-Pro, iOS 26.0.1")),
    ]
    for found, expected in checks:
        assert found == expected, f"{found} != {expected}"
    unavailable = {"runtimes": [dict(entry, isAvailable=False) if "26-0" in entry["identifier"] else entry for entry in runtimes["runtimes"]]}
    assert choose(unavailable, devices, "26.0") == ("use", "A", "iPhone 16, iOS 18.5")
    try:
        choose(runtimes, devices, "17.0")
        raise AssertionError("an SDK older than every runtime chose one")
    except ValueError as error:
        assert str(error) == "no available iOS runtime at or below the iOS SDK 17.0; the image has: iOS 18.5, iOS 26.0.1, iOS 26.1, watchOS 26.0", error
    print(f"simulator.py: {len(checks) + 2} choices as expected")


if __name__ == "__main__":
    self_test() if sys.argv[1:] == ["--self-test"] else main()
