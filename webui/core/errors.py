"""Error answers: JSON for machines, a short page in the page's language for browsers. Below both
common.py (the blueprints' helpers) and guard.py (the request checks), which answer with them."""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, make_response, render_template, request

from webui.core.i18n import lang, pick

HTTP_WORDS = {400: ("Bad request", "不正なリクエスト"), 401: ("Join the table first", "先に参加してください"),
              403: ("Not allowed", "許可されていません"), 404: ("Not found", "見つかりません"),
              405: ("Wrong method", "使えない方法です"), 409: ("The table changed", "卓の状態が変わりました"),
              413: ("Too large", "大きすぎます"), 415: ("Not JSON", "JSONではありません"),
              421: ("Wrong address", "アドレスが違います"), 422: ("Not allowed by the rules", "ルール上できません"),
              410: ("Gone", "もうありません"), 429: ("Too many attempts", "試行が多すぎます"),
              500: ("Server error", "サーバーの不具合"), 503: ("Not available", "今は使えません")}
"""The heading of an HTML error page per status."""
HTTP_JA = {400: "リクエストを読み取れませんでした。ページを読み込み直してもう一度試してください。",
           401: "先にテーブルに参加してください。", 403: "これは許可されていません。",
           408: "リクエストが時間内に届きませんでした。もう一度試してください。",
           410: "このページはもうありません。", 411: "リクエストに長さがありません。",
           416: "その範囲は返せません。", 431: "リクエストのヘッダーが大きすぎます。",
           501: "この方法には対応していません。", 503: "今は使えません。しばらくしてからもう一度試してください。"}
"""Japanese for the statuses Werkzeug raises with its own (English) words."""


def wants_json() -> bool:
    """Machines get JSON errors (the API, or a client that prefers JSON); browsers get a page."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_answer(status: int, message: str, ja: str = "", **extra: Any) -> tuple[Response, int]:
    """An error as JSON or as a short HTML page in the page's language."""
    if wants_json():
        # "error" in the language the phone asked for (the page shows it as it is); both kept
        body = {"error": pick(message, ja, lang()), **extra, "en": extra.get("reason", message)}
        if ja:
            body["ja"] = ja
        resp = jsonify(body)
    else:
        language = lang()
        title = HTTP_WORDS.get(status, (str(status), str(status)))
        resp = make_response(render_template("error.html", lang=language, status=status,
                                             title=pick(title[0], title[1], language),
                                             message=pick(message, ja, language)))
    if status == 429 and "retry_after" in extra:
        resp.headers["Retry-After"] = str(extra["retry_after"])
    return resp, status
