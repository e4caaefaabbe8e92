"""The phone page's words in English and Japanese (game and card names come from the engines and
the catalogue)."""
from __future__ import annotations

LANGS = ("en", "ja")

STRINGS: dict[str, tuple[str, str]] = {
    "app": ("Table Companion", "テーブル・コンパニオン"),
    "join": ("Join a table", "テーブルに参加"),
    "join_code": ("Join code", "参加コード"),
    "join_go": ("Join", "参加する"),
    "join_hint": ("Scan the QR code on the host screen, or type the short code.",
                  "ホスト画面のQRコードを読み取るか、短いコードを入力してください。"),
    "host": ("Host a table", "テーブルを開く"),
    "new_table": ("New table", "新しいテーブル"),
    "game": ("Game", "ゲーム"),
    "players": ("Players", "人数"),
    "names": ("Names (in seat order, comma separated)", "名前(席順、カンマ区切り)"),
    "options": ("Options", "オプション"),
    "rounds": ("Games in the series (optional)", "シリーズのゲーム数(任意)"),
    "target": ("Target score (optional)", "目標点(任意)"),
    "create": ("Create the table", "テーブルを作る"),
    "tables": ("Tables", "テーブル一覧"),
    "open": ("Open", "開く"),
    "scores": ("Scores", "得点"),
    "your_seat": ("Your seat", "あなたの席"),
    "watch_only": ("Whole table (scorekeeper)", "卓全体(記録係)"),
    "to_move": ("To move", "手番"),
    "chance": ("The table (a card is turned over)", "卓(カードをめくる)"),
    "moves": ("Moves", "手"),
    "deal_random": ("Let the app shuffle / draw", "アプリにシャッフル/ドローさせる"),
    "enter_drawn": ("Or tap the card that was drawn", "または引いたカードをタップ"),
    "undo": ("Undo last move", "一手戻す"),
    "undo_request": ("Ask the host to undo", "ホストに取り消しを依頼"),
    "override": ("Override (house ruling)", "上書き(ハウスルール)"),
    "reason": ("Reason", "理由"),
    "correct": ("Replace the last move", "直前の手を差し替える"),
    "end_game": ("End game", "ゲーム終了"),
    "end_game_confirm": ("End this game now, with the scores as they stand? Undo takes it back.",
                         "現在の得点でこのゲームを今すぐ終了しますか?「一手戻す」で取り消せます。"),
    "end_game_yes": ("Yes, end the game now", "はい、今すぐ終了する"),
    "ended_early": ("The host ended this game early: these are the scores as they stood.",
                    "ホストがこのゲームを途中で終了しました。得点は終了時点のものです。"),
    "ended_early_short": ("ended early by the host", "ホストが途中終了"),
    "next_game": ("Next game in the series", "シリーズの次のゲーム"),
    "export": ("Export (JSON)", "書き出し(JSON)"),
    "game_over": ("Game over", "ゲーム終了"),
    "winner": ("Winner", "勝者"),
    "series": ("Series", "シリーズ"),
    "game_n": ("Game", "ゲーム"),
    "total": ("Total", "合計"),
    "rules": ("Rules", "ルール"),
    "back": ("Back", "戻る"),
    "events": ("What happened", "経過"),
    "prompt": ("Needs a decision", "判断が必要"),
    "waiting": ("Waiting for", "待機中:"),
    "not_your_turn": ("Not your turn", "あなたの番ではありません"),
    "camera": ("Camera", "カメラ"),
    "no_camera": ("No camera frame (manual scorekeeping).", "カメラ映像なし(手動記録)。"),
    "host_admin": ("Host", "ホスト"),
    "scan_to_join": ("Scan to join", "読み取って参加"),
    "theme": ("Theme", "テーマ"),
    "language": ("日本語", "English"),
    "stale": ("The table changed meanwhile; refreshed — please tap again.",
              "その間に卓が変わりました。更新したのでもう一度タップしてください。"),
    "offline": ("Reconnecting…", "再接続中…"),
    "draw": ("Draw", "ドロー"),
    "next_draw": ("The next draw", "次のドロー"),
    "odds_win": ("win", "勝利"),
    "odds_draw": ("draw", "引き分け"),
    "odds_defeat": ("defeat", "敗北"),
    "hand": ("Hand", "手札"),
    "circle": ("The circle", "円"),
    "enter_circle": ("Or enter the circle as you laid it", "または並べた円を入力"),
    "enter_circle_hint": ("Tap the cards clockwise, starting with the card just after the pawn.",
                          "コマのすぐ次のカードから時計回りにタップしてください。"),
    "circle_done": ("Done", "完了"),
    "pawn": ("Pawn", "コマ"),
    "gone": ("Values gone (5th ends the game)", "なくなった数(5枚目で終了)"),
    "colours_scored": ("Colours scored", "得点済みの色"),
    "taken": ("Taken cards", "取ったカード"),
    "hill": ("Hill", "丘"),
    "face_down": ("face down", "伏せ"),
    "revealed": ("revealed", "公開"),
    "forbidden": ("forbidden now", "今は置けない"),
    "trick": ("Current trick", "場のトリック"),
    "passed": ("Passed", "パス済み"),
    "won_tricks": ("Tricks won", "獲得トリック"),
    "leader": ("Leader", "リード"),
    "clock": ("Clock of nations", "国家の時計"),
    "era": ("Era", "時代"),
    "kings": ("Kings drawn", "引いたK"),
    "pile": ("Draw pile", "山札"),
    "drawn": ("Drawn card", "引いたカード"),
    "last_resolution": ("Last resolution, step by step", "直前の処理(手順)"),
    "odds": ("Odds for this decision", "この判断の確率"),
    "odds_show": ("Compute odds", "確率を計算"),
    "terminals": ("Terminal cards", "終端カード"),
    "threshold": ("Stop threshold", "打ち止めの閾値"),
    "out": ("Out", "脱落"),
    "work": ("Work area", "作業場"),
    "temporary": ("Temporary slots", "一時置き場"),
    "deck": ("Deck", "山札"),
    "stopped": ("stopped", "打ち止め"),
    "available": ("available", "残り"),
    "scored_sets": ("Sets scored", "得点したセット"),
    "table_code": ("Table code", "テーブルコード"),
    "chart": ("Scores over the series", "シリーズの得点推移"),
    "summary": ("Summary", "まとめ"),
    "seat": ("Seat", "席"),
    "choose": ("Choose", "選択"),
    # the phone camera page and the camera set-up check
    "phone_camera": ("Phone camera", "スマホカメラ"),
    "phone_camera_use": ("Use a phone as the camera", "スマホをカメラとして使う"),
    "phone_camera_how": ("Open this on the phone that will look down on the table (a stand or a "
                         "lamp arm about 1 m above the middle of the table, rear camera down). The "
                         "link makes that phone a host device: show it to no one else.",
                         "テーブルを真上から写すスマホでこれを開いてください(テーブル中央の約1m上に"
                         "スタンドやアームで固定し、背面カメラを下に)。このリンクでそのスマホはホスト"
                         "端末になります。他の人には見せないでください。"),
    "phone_camera_https": ("Off this computer a phone's camera needs HTTPS: start the server with "
                           "companion serve --lan --https and accept the certificate warning once.",
                           "このコンピューター以外ではスマホのカメラにHTTPSが必要です。"
                           "companion serve --lan --https で起動し、証明書の警告を一度だけ承認してください。"),
    "camera_check": ("Camera set-up check", "カメラ設置チェック"),
    "camera_check_alt": ("The camera's view with the watched area and where cards will read "
                         "(green) or not (red)",
                         "カメラの映像:監視範囲と、カードを読める場所(緑)・読めない場所(赤)"),
    "camera_next": ("Next", "次にすること"),
    "camera_lowest": ("lowest", "最低"),
    "camera_readable": ("of the table reads", "の範囲で読み取り可能"),
    "camera_gone": ("No frame from the phone for a while: is the camera page open and the screen on?",
                    "しばらくスマホから映像が届いていません。カメラのページを開いたまま、画面をオンにしていますか?"),
    "camera_start": ("Start the camera", "カメラを開始"),
    "camera_stop": ("Stop", "停止"),
    "camera_sending": ("Sending", "送信中"),
    "camera_fps": ("frames/s", "フレーム/秒"),
    "camera_stopped": ("Stopped.", "停止しました。"),
    "camera_denied": ("The camera was refused: allow camera access for this site in the browser's "
                      "settings, then tap Start.",
                      "カメラの使用が拒否されました。ブラウザーの設定でこのサイトのカメラを許可してから"
                      "「カメラを開始」をタップしてください。"),
    "camera_insecure": ("This page needs HTTPS to use the camera. Restart the server with "
                        "companion serve --lan --https and open the https:// address (accept the "
                        "certificate warning once).",
                        "カメラを使うにはHTTPSが必要です。companion serve --lan --https でサーバーを"
                        "起動し直し、https:// のアドレスを開いてください(証明書の警告を一度だけ承認)。"),
    "camera_hint": ("Keep this page open with the screen on; the phone must not move once the check "
                    "says ready.",
                    "このページを開いたまま画面をオンにしておいてください。「準備完了」になったら"
                    "スマホを動かさないでください。"),
    "camera_host_page": ("Host screen", "ホスト画面"),
}


def t(key: str, lang: str) -> str:
    """The UI string ``key`` in ``lang`` (English if the language is unknown)."""
    en, ja = STRINGS.get(key, (key, key))
    return ja if lang == "ja" else en


def pick(text: str, ja: str, lang: str) -> str:
    """The Japanese text when wanted and present, else the English."""
    return ja if lang == "ja" and ja else text
