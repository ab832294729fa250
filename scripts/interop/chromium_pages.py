#!/usr/bin/python3
"""fxreplay's QA pages opened in headless Chromium (scripts/interop.sh, part `chromium`).

    chromium_pages.py FXREPLAY WORKDIR

Makes the pages from the bundled sample (Samples/call.mp4 and its annotations): a placement track
of the call and a copy with one annotation moved a few pixels on some frames and hidden on one,
compared with `qa compare --report --video` (pictures beside the page, and --self-contained);
`qa latency --report` at 0 and 200 ms with a tolerance. Serves WORKDIR on 127.0.0.1 and opens each
page in Chromium (the Browser of chromium_play.py). Checks: no console error or uncaught exception,
every picture loaded (naturalWidth > 0), the verdict, thresholds and run facts present, and for a
self-contained page no request but the page itself. Writes a full-page screenshot per page
(WORKDIR/NAME.png) for a person to look at.
"""
import base64
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium_play import Browser, serve  # noqa: E402
from lib import finish, result, run  # noqa: E402

SAMPLES = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Samples"))

FACTS = """(() => ({
  images: [...document.images].map(i => ({src: i.src.slice(0, 40), ok: i.complete && i.naturalWidth > 0})),
  verdict: (document.querySelector('.verdict') || {}).textContent || '',
  text: document.body.innerText,
  width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
}))()"""


def make_pages(fxreplay, work):
    """Writes the pages into `work`; returns {name: (page, must_contain)} for the ones written."""
    call, scene = os.path.join(SAMPLES, "call.mp4"), os.path.join(SAMPLES, "annotations.json")
    track_a, track_b = os.path.join(work, "track-a.csv"), os.path.join(work, "track-b.csv")
    status, _, err = run([fxreplay, "track", call, "--poses-from-sei", "--annotations", scene, "-o", track_a])
    result("fxreplay track of the sample", status == 0, err.strip())
    if status != 0:
        return {}
    with open(track_a, newline="") as file:
        rows = list(csv.DictReader(file))
    first = next(row["id"] for row in rows if row["visible"] == "1")
    shown = [row for row in rows if row["id"] == first and row["visible"] == "1"]
    # The first annotation shown drifts 0…6 px right on its later frames, and B hides it on one frame.
    for index, row in enumerate(shown[len(shown) // 2:]):
        row["x"] = f"{float(row['x']) + min(6.0, index * 0.5):.4f}"
    shown[len(shown) // 3]["visible"] = "0"
    with open(track_b, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)

    pages = {}
    compare = [fxreplay, "qa", "compare", track_a, track_b, "--tolerance", "2", "--video", call]
    for name, extra in (("qa-compare", []), ("qa-compare-inline", ["--self-contained"])):
        page = os.path.join(work, f"{name}.html")
        status, _, err = run(compare + ["--report", page] + extra)
        result(f"qa compare --report {name}: exit 1 naming {first}", status == 1 and first in err, err.strip())
        pages[name] = (page, ["FAIL: " + first, "at most 2.00 px", "command line", "input video"])
    page = os.path.join(work, "qa-latency.html")
    status, _, err = run([fxreplay, "qa", "latency", call, "--poses-from-sei", "--annotations", scene,
                          "--delay", "0,200ms", "--tolerance", "5", "--report", page])
    result("qa latency --report: a verdict (exit 0 or 1)", status in (0, 1), err.strip())
    pages["qa-latency"] = (page, ["at most 5.00 px", "0 ms, 200 ms", "command line", "input recording"])
    return pages


def open_page(browser, url, screenshot):
    """Loads `url`; returns (facts, console errors, requested URLs) and writes a full-page screenshot."""
    target = browser.send("Target.createTarget", url="about:blank")["targetId"]
    session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(f"{domain}.enable", session)
    browser.send("Emulation.setDeviceMetricsOverride", session, width=1100, height=800, deviceScaleFactor=1, mobile=False)
    browser.events.clear()
    browser.send("Page.navigate", session, url=url)
    browser.send("Runtime.evaluate", session, awaitPromise=True, returnByValue=True,
                 expression="new Promise(r => document.readyState === 'complete' ? r() : addEventListener('load', r))")
    facts = browser.send("Runtime.evaluate", session, expression=FACTS, returnByValue=True)["result"]["value"]
    # The whole page in one picture (at most 4000 px tall).
    browser.send("Emulation.setDeviceMetricsOverride", session, width=1100, height=min(facts["height"], 4000),
                 deviceScaleFactor=1, mobile=False)
    picture = browser.send("Page.captureScreenshot", session, format="png", captureBeyondViewport=True)["data"]
    with open(screenshot, "wb") as file:
        file.write(base64.b64decode(picture))
    browser.send("Target.closeTarget", targetId=target)
    errors, requests = [], []
    for event in browser.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append(params["exceptionDetails"].get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(arg.get("value")) for arg in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            requests.append(params["request"]["url"])
    return facts, errors, requests


def main():
    fxreplay, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    pages = make_pages(fxreplay, work)
    server, base = serve(work)
    browser = Browser()
    try:
        for name, (page, expected) in pages.items():
            if not os.path.exists(page):
                continue
            url = f"{base}/{os.path.basename(page)}"
            try:
                facts, errors, requests = open_page(browser, url, os.path.join(work, f"{name}.png"))
            except RuntimeError as error:
                result(f"chromium {name}: opens", False, str(error))
                continue
            result(f"chromium {name}: no console errors", not errors, "; ".join(errors))
            images = facts["images"]
            result(f"chromium {name}: every picture loads", all(image["ok"] for image in images),
                   f"{sum(image['ok'] for image in images)} of {len(images)}")
            missing = [text for text in expected if text not in facts["text"]]
            result(f"chromium {name}: verdict, thresholds and run shown", not missing and facts["verdict"],
                   f"missing {missing}" if missing else facts["verdict"].strip()[:80])
            if name.endswith("-inline"):
                others = [request for request in requests if request != url and not request.startswith("data:")]
                result(f"chromium {name}: self-contained (no request but the page)", not others and images,
                       f"{len(images)} inline pictures" if not others else ", ".join(others))
    finally:
        browser.close()
        server.shutdown()
    finish()


if __name__ == "__main__":
    main()
