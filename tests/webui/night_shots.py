"""The screenshots of docs/webui.md's "A game night" (issue 23), made in headless Chromium:
``python -m tests.webui.night_shots [chains|spartacus|hills|details]`` writes docs/img/webui-night-*.png
(390×844 phones, the host at 1280×800). Not a test: the game-night test asserts what these show."""
from __future__ import annotations

import json
import random
import sys
import tempfile
import urllib.request
from pathlib import Path

from companion.session import Store, TableSession
from webui import create_app
from webui.core.server import RunningServer

OUT = Path(__file__).resolve().parents[2] / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"


def _call(url: str, token: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", "X-Table-Token": token})
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)


def _play(srv, table, tokens, rng, until) -> None:
    """Steps by the API with each seat's own token (the host for the opening) until ``until(state)``."""
    tid, host = table["id"], table["host_token"]
    while True:
        st = _call(f"{srv.url}/api/tables/{tid}/state", host)
        if until(st) or st["is_over"]:
            return
        if st["prompts"]:
            p = st["prompts"][0]
            _call(f"{srv.url}/api/tables/{tid}/answer", host,
                  {"prompt": p["id"], "choice": p["choices"][0]["id"], "version": st["version"]})
        elif st["current_player"] == -1 and st["turner"] is None:
            _call(f"{srv.url}/api/tables/{tid}/deal", host, {"version": st["version"]})
        else:
            token = tokens[st["turner"] if st["current_player"] == -1 else st["current_player"]]
            mine = _call(f"{srv.url}/api/tables/{tid}/state", token)
            moves = [b["move"] for g in mine["groups"] for b in g["moves"]]
            if st["current_player"] == -1:
                game = TableSession.open(Store(srv.app.config["DB"]), tid).game
                legal = {json.dumps(m.to_json(), sort_keys=True) for m in game.legal_moves()}
                moves = [m for m in moves if json.dumps(m, sort_keys=True) in legal]
            _call(f"{srv.url}/api/tables/{tid}/move", token, {"move": rng.choice(moves), "version": st["version"]})


def _keep_camera_pictures(srv, table_id: str) -> None:
    """What a camera that watched the table keeps: a small picture of the table after each move
    (rendered here from the game's layouts by the vision tests' renderer)."""
    from companion.games import game_class
    from benchmarks.vision import camera, render
    from companion.engine import Move
    from vision.pipeline import default_layout
    from vision.table import layouts
    from webui.camera.camera import small_jpeg
    store = Store(srv.app.config["DB"])
    s = TableSession.open(store, table_id)
    game = game_class(s.game_id)(s.players, dict(s.game.options))
    width, height = layouts.table_size(s.game_id, s.players)
    for k, m in enumerate(s.state(None)["moves"]):
        game.apply(Move.from_json({key: v for key, v in m.items() if key not in ("version", "override")}))
        placed = sorted(layouts.place(s.game_id, game.layout(), s.players, random.Random(k)), key=lambda p: p.z)
        cards = [(p.card_id, p.face_up, p.centre, p.angle_deg) for p in placed if not p.card_id.startswith("K-CAL")]
        frame = render(cards, px_per_mm=1.0, seed=k, layout=default_layout(s.game_id, s.players),
                       cam=camera(1.0, centre_mm=(width / 2, height / 2)))
        store.keep_frame(table_id, m["version"], small_jpeg(frame))


def main(only: str | None = None) -> int:
    """Make the screenshots (``only``: one part's, "chains", "spartacus", "hills" or "details")."""
    import playwright.sync_api as playwright
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, RunningServer(create_app({"DB": f"{tmp}/night.db"})) as srv, \
            playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])

        def screens(game: str, names: list[str]):
            table = _call(f"{srv.url}/api/tables", "", {"game": game, "players": len(names), "names": names})
            host_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
            host = host_ctx.new_page()
            host.goto(f"{srv.url}{table['host_url']}?token={table['host_token']}")
            phones, tokens = [], {}
            for seat in range(len(names)):
                ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                page = ctx.new_page()
                page.goto(f"{srv.url}/join?code={table['code']}")
                page.tap(f"button.claim[data-seat='{seat}']")
                page.wait_for_selector("#seat-picker", state="detached")
                tokens[seat] = page.evaluate("document.body.dataset.token")
                phones.append(page)
            return table, host, phones, tokens

        def settle(*pages, version):
            for page in pages:
                page.wait_for_function("v => +document.body.dataset.version >= v", arg=version)
                page.wait_for_timeout(300)

        if only in (None, "chains"):
            # Chains, 3 players: Ben turns a card over and enters it on his phone; Ann asks to take back
            rng = random.Random(3)
            table, host, phones, tokens = screens("chains", ["Ann", "Ben", "Chie"])
            _play(srv, table, tokens, rng, lambda st: st["turner"] == 1 and len(st["moves"]) > 6)
            st = _call(f"{srv.url}/api/tables/{table['id']}/state", table["host_token"])
            settle(host, *phones, version=st["version"])
            phones[1].screenshot(path=str(OUT / "webui-night-card.png"))
            _play(srv, table, tokens, rng, lambda st: st["current_player"] == 2 and len(st["moves"]) > 12)
            st = _call(f"{srv.url}/api/tables/{table['id']}/state", table["host_token"])
            settle(*phones, version=st["version"])
            asker = next(p for p in phones[:2] if p.query_selector("#undo-request"))
            asker.tap("#undo-request")
            asker.wait_for_selector("#undo-pending")
            host.wait_for_selector("#needs-host .undo-ask")
            asker.screenshot(path=str(OUT / "webui-night-pending.png"))
            host.wait_for_timeout(300)
            host.screenshot(path=str(OUT / "webui-night-host.png"))

        if only in (None, "spartacus"):
            # Spartacus, 3 players, to its end: the result table with the final scoring
            rng = random.Random(5)
            table, host, phones, tokens = screens("spartacus", ["Ann", "Ben", "Chie"])
            _play(srv, table, tokens, rng, lambda st: False)
            st = _call(f"{srv.url}/api/tables/{table['id']}/state", table["host_token"])
            settle(host, *phones, version=st["version"])
            host.screenshot(path=str(OUT / "webui-night-host-end.png"))
            phones[0].locator("#end-table").scroll_into_view_if_needed()
            phones[0].screenshot(path=str(OUT / "webui-night-phone-end.png"))
            host.click("#replay-link")
            host.click("#replay-next")
            for _ in range(7):
                host.click("#replay-next")
            host.screenshot(path=str(OUT / "webui-night-replay.png"))

        if only in (None, "hills"):
            # Seven Hills: the log by name; Ann's face-down card corrected by asking her phone; a watcher
            rng = random.Random(4)
            table, host, phones, tokens = screens("hills", ["Ann", "Ben"])
            _play(srv, table, tokens, rng,   # until a card was just laid face down
                  lambda st: len(st["moves"]) >= 5 and str(st["moves"][-1].get("card")).startswith("B-"))
            st = _call(f"{srv.url}/api/tables/{table['id']}/state", table["host_token"])
            last = st["moves"][-1]
            game = TableSession.open(Store(srv.app.config["DB"]), table["id"]).game.clone()
            game.undo()   # another hill the last card could have gone to
            hill = next(m.hill for m in game.legal_moves() if m.hill != last["hill"])
            _call(f"{srv.url}/api/tables/{table['id']}/correct", table["host_token"],
                  {"move": {"player": last["player"], "kind": "place", "hill": hill, "card": None}, "version": st["version"]})
            mover, other = phones[last["player"]], phones[1 - last["player"]]
            mover.wait_for_selector(".prompt.k-confirm .confirm-card")
            host.wait_for_selector(".prompt.k-confirm")
            mover.screenshot(path=str(OUT / "webui-night-confirm.png"))
            host.screenshot(path=str(OUT / "webui-night-confirm-host.png"))
            mover.tap(".prompt.k-confirm button.answer[data-choice='yes']")
            other.wait_for_selector(".log li.ev-corrected")
            other.locator("section.events").scroll_into_view_if_needed()
            other.screenshot(path=str(OUT / "webui-night-hills-log.png"))
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            watcher = ctx.new_page()
            watcher.goto(f"{srv.url}/join?code={table['code']}")
            watcher.wait_for_selector("#watching")
            watcher.screenshot(path=str(OUT / "webui-night-watcher.png"))
            # the game to its end with a camera's picture kept per move (as the camera feed keeps them),
            # then replayed: the picture beside the move
            _play(srv, table, tokens, rng, lambda st: False)
            _keep_camera_pictures(srv, table["id"])
            host.goto(f"{srv.url}/host/{table['id']}/replay?step=8")
            host.wait_for_selector("#replay-frame")
            host.wait_for_function("document.getElementById('replay-frame').complete")
            host.screenshot(path=str(OUT / "webui-night-replay-camera.png"))

        if only in (None, "details"):
            # a Chains misfit: a thing to do at the table, not a decision; Prussia's place in words
            from companion.engine import simulate
            from companion.games import new_game
            table, host, phones, tokens = screens("chains", ["Ann", "Ben"])
            s = srv.app.extensions["tables"].get(table["id"])
            for move, events in simulate(new_game("chains", 2), 2).turns:
                s.play(move, expected_version=s.version)
                if any(e.kind == "work_ruined" for e in events):
                    break
            srv.app.extensions["tables"].changed(table["id"])
            settle(*phones, version=s.version)
            phones[0].screenshot(path=str(OUT / "webui-night-ruling.png"))
            table, host, phones, tokens = screens("prussia", ["Ann"])
            _play(srv, table, tokens, random.Random(2),
                  lambda st: any(b["move"]["kind"] == "place" for g in st["groups"] for b in g["moves"]))
            st = _call(f"{srv.url}/api/tables/{table['id']}/state", table["host_token"])
            settle(*phones, version=st["version"])
            phones[0].screenshot(path=str(OUT / "webui-night-prussia-place.png"))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
