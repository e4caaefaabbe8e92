"""The phone page's words in English and Japanese (game and card names come from the engines and
the catalogue)."""
from __future__ import annotations

from flask import request

LANGS = ("en", "ja")


def lang() -> str:
    """The page language: ``?lang=``, then the ``lang`` cookie, then the browser's preference."""
    wanted = request.args.get("lang") or request.cookies.get("lang")
    if wanted in LANGS:
        return wanted
    return request.accept_languages.best_match(LANGS, default="en") or "en"


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
    "role_table": ("This phone keeps score for the whole table", "この端末は卓全体の記録係です"),
    "role_watch": ("Watching (no seat)", "観戦中(席なし)"),
    "role_seat": ("seat", "席"),
    "pick_seat": ("Which seat is yours?", "あなたの席は?"),
    "pick_seat_hint": ("Tap your name. Only the host can free or move a seat later.",
                       "自分の名前をタップしてください。後で席を解放・移動できるのはホストだけです。"),
    "no_free_seat": ("Every seat is taken: you are watching. The host can free a seat or make this phone the scorekeeper.",
                     "すべての席が埋まっています。観戦中です。ホストは席を解放したり、この端末を記録係にしたりできます。"),
    "seats": ("Seats", "席"),
    "seat_free": ("free", "空き"),
    "seat_release": ("Free the seat", "席を解放"),
    "phones": ("Other phones", "その他の端末"),
    "grant_table": ("Make scorekeeper", "記録係にする"),
    "revoke_table": ("Stop scorekeeping", "記録係をやめさせる"),
    "remove_phone": ("Remove", "外す"),
    "undo_own": ("Take back my move", "自分の手を戻す"),
    "undo_asks": ("Asks to take back", "取り消しの依頼"),
    "undo_accept": ("Accept: take it back", "承認して戻す"),
    "undo_decline": ("Decline", "断る"),
    "undo_moved_on": ("The game moved on since", "その後ゲームが進みました"),
    "chance_is_hosts": ("A card is turned over at the table: the host or the scorekeeper enters it.",
                        "卓でカードがめくられます。ホストか記録係が入力します。"),
    "host_no_hands": ("The host page shows no hands: players move on their own phones.",
                      "ホスト画面には手札を表示しません。各プレイヤーが自分の端末で指します。"),
    "to_move": ("To move", "手番"),
    "chance": ("The table (a card is turned over)", "卓(カードをめくる)"),
    "moves": ("Moves", "指し手"),
    "deal_random": ("Let the app shuffle / draw", "アプリにシャッフル/ドローさせる"),
    "lay_circle": ("Lay the circle", "円を並べる"),
    "lay_circle_hint": ("The app shuffles the 25 cards: lay them clockwise as the circle below shows, "
                        "and the pawn where it stands.",
                        "アプリが25枚を切ります。下に表示される円のとおりに時計回りに並べ、コマを示された位置に置いてください。"),
    "wait_circle": ("The host lays the circle (or enters the circle you laid).",
                    "ホストが円を並べます(または並べた円を入力します)。"),
    "lay_terminals": ("Lay the terminals", "終端カードを並べる"),
    "lay_terminals_hint": ("Each player takes one card of each value 1–10 out of their deck and lays "
                           "them out as terminal cards; the app records them and the decks are shuffled.",
                           "各プレイヤーは自分の山札から1〜10のカードを1枚ずつ抜き出して終端カードとして並べます。"
                           "アプリが記録し、山札を切ります。"),
    "wait_terminals": ("The host lays out the terminal cards to begin.",
                       "ホストが終端カードを並べてゲームを始めます。"),
    "deal_hands": ("Let the app deal the hands", "アプリに手札を配らせる"),
    "draw_random": ("Let the app draw the card", "アプリにカードを引かせる"),
    "override_nothing": ("Nothing to override or replace yet: the game begins with the table laid out "
                         "(the button above).", "まだ上書き・置き換えできる手はありません。まず卓を並べてください(上のボタン)。"),
    "or_dealt": ("Or, if you dealt real cards at the table", "または、卓で実際に配った場合"),
    "answer_first": ("Answer the question above first: moves wait until it is settled.",
                     "先に上の確認に答えてください。決まるまで手は指せません。"),
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
    # a zero-width space marks where a narrow column's heading may break (CSS keep-all: nowhere else,
    # so never "このゲ|ームの")
    "this_game": ("This game", "このゲームの\u200b得点"),
    "series_total": ("Series total", "シリーズ\u200b合計"),
    "total_note": ("Series total: the scores of the {n} finished games of this series added up; this "
                   "game counts once it ends.",
                   "シリーズ合計: このシリーズで終わった{n}ゲームの得点の合計です。今のゲームは終了時に加わります。"),
    "total_note_none": ("Series total: each game's score is added here when that game ends (none has "
                        "ended yet).",
                        "シリーズ合計: 各ゲームの得点は、そのゲームが終わったときにここへ加わります(まだ終わったゲームはありません)。"),
    "rules": ("Rules", "ルール"),
    "back": ("Back", "戻る"),
    "events": ("What happened", "経過"),
    "prompt": ("Needs a decision", "判断が必要"),
    "waiting": ("Waiting for", "待機中:"),
    "not_your_turn": ("Not your turn", "あなたの番ではありません"),
    "camera": ("Camera", "カメラ"),
    "no_camera": ("No camera frame (manual scorekeeping).", "カメラ映像なし(手動記録)。"),
    "camera_moved": ("The camera now watches the rematch:", "カメラは今、再戦のテーブルを見ています:"),
    "camera_moved_open": ("open it", "再戦を開く"),
    "host_admin": ("Host", "ホスト"),
    "scan_to_join": ("Scan to join", "読み取って参加"),
    "theme": ("Theme", "テーマ"),
    "language": ("日本語", "English"),
    "stale": ("The table changed meanwhile; refreshed — please tap again.",
              "その間に卓が変わりました。更新したのでもう一度タップしてください。"),
    "offline": ("Reconnecting…", "再接続中…"),
    "loading": ("Loading…", "読み込み中…"),
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
    "odds_note": ("{n} random playouts per choice; later decisions: {policy}.",
                  "各選択肢につき{n}回のランダムな試行。その後の判断: {policy}。"),
    "policy_greedy": ("the best strength margin right away", "その場で国力差が最大になる手"),
    "policy_random": ("at random", "ランダム"),
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
    "result_table": ("Result", "結果"),
    "replay": ("Replay", "再生"),
    "replay_game": ("Replay this game move by move", "このゲームを1手ずつ再生"),
    "replay_move": ("Move {n} of {m}", "{m}手中{n}手目"),
    "replay_first": ("First", "最初"),
    "replay_prev": ("Back one move", "1手戻る"),
    "replay_next": ("Next move", "次の手"),
    "replay_last": ("Last", "最後"),
    "rank": ("Rank", "順位"),
    "draw": ("Draw", "引き分け"),
    "end_tricks": ("Tricks", "トリック"),
    "end_hand": ("Hand", "手札"),
    "end_sets": ("Sets", "セット"),
    "end_hills": ("Hills", "丘"),
    "turns_card": ("turns a card over and enters it", "カードをめくって入力"),
    "your_card": ("Your card: enter the card you turned over", "あなたの番: めくったカードを入力"),
    "wait_card": ("{name} turns the card over and enters it on their phone.",
                  "{name}さんがカードをめくり、自分の端末で入力します。"),
    "moves_on_phone": ("{name} moves on their own phone.", "{name}さんが自分の端末で指します。"),
    "move_for": ("Move for {name} from here", "ここから{name}さんの代わりに指す"),
    "undo_pending": ("Undo asked: waiting for the host's answer…", "取り消しを依頼済み: ホストの返事を待っています…"),
    "undo_asked": ("Asked the host to take it back.", "ホストに取り消しを依頼しました。"),
    "log_all": ("Show the whole log", "経過をすべて表示"),
    "whole_log": ("The whole log", "すべての経過"),
    "back_to_table": ("Back to the table", "テーブルに戻る"),
    "your_turn_title": ("Your turn", "あなたの番"),
    "sound_on": ("Sound on", "音あり"),
    "sound_off": ("Sound off", "音なし"),
    "needs_host": ("Needs you", "ホストの対応が必要"),
    "seats_free": ("Free seats (a phone joins with the code)", "空席(端末はコードで参加)"),
    "seats_taken": ("{n} of {m} seats taken", "{m}席中{n}席が埋まっています"),
    "rematch_following": ("Rematch: to the new table in your seat…", "再戦: 同じ席で新しいテーブルへ…"),
    "seat": ("Seat", "席"),
    "choose": ("Choose", "選択"),
    "face_down_card": ("A face-down card", "伏せカード"),
    "points_short": ("pt", "点"),
    "hand_unseen": ("{n} cards in your hand and {k} face down on the table: the camera has not seen "
                    "which, so these are the cards you may hold.",
                    "手札{n}枚と、卓に伏せた{k}枚。カメラにはどれか見えていないので、持っている可能性のあるカードです。"),
    "chance_short": ("The table (a card turned over)", "卓(めくったカード)"),
    "your_move_card": ("Your move: choose a card", "あなたの番: カードを選ぶ"),
    "their_move_card": ("{name}'s move: choose a card", "{name}の番: カードを選ぶ"),
    "your_move": ("Your move", "あなたの番: 指し手を選ぶ"),
    "their_move": ("{name}'s move", "{name}の番: 指し手を選ぶ"),
    "where_to": ("where does it go?", "どこに置く?"),
    "which_card": ("which card was it?", "どのカード?"),
    "other_card": ("← Another card", "← 別のカード"),
    "override_pick": ("Choose the move: the seat, the card, then where", "手を選ぶ: 席、カード、置き場所の順"),
    "override_chosen": ("Chosen", "選んだ手"),
    "override_none": ("No move chosen yet: pick one above.", "まだ手を選んでいません。上から選んでください。"),
    # the phone camera page and the camera set-up check
    "phone_camera": ("Phone camera", "スマホカメラ"),
    "phone_camera_use": ("Use a phone as the camera", "スマホをカメラとして使う"),
    "phone_camera_how": ("Open this on the phone that will look down on the table (a stand or a "
                         "lamp arm about 1 m above the middle of the table, rear camera down). The "
                         "link lets that phone only send the camera's picture; still, show it to no "
                         "one else.",
                         "テーブルを真上から写すスマホでこれを開いてください(テーブル中央の約1m上に"
                         "スタンドやアームで固定し、背面カメラを下に)。このリンクで許されるのはカメラ"
                         "映像の送信だけですが、他の人には見せないでください。"),
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
    "camera_resolution": ("Resolution", "解像度"),
}


OPTIONS: dict[tuple[str, str], tuple[str, str, str, str]] = {
    # (game, option): English name, English description, Japanese name, Japanese description
    ("wheel", "start_player"): ("First player", "the seat that takes the first card",
                                "先手", "最初にカードを取る席"),
    ("wheel", "single_card_fall"): ("Single card fall", "once per game a player may discard the card they just took",
                                    "1枚落とし", "各プレイヤーは1ゲームに1回、取ったばかりのカードを捨てられる"),
    ("wheel", "colour_and_value"): ("Colour and value", "a completed value scores inverted worth (1→5 … 5→1); "
                                    "the game ends once a colour and a value have scored",
                                    "色と数字", "揃った数字は逆の点数(1→5 … 5→1)。色と数字の両方が得点されたら終了"),
    ("hills", "start_player"): ("First player", "who starts (red or blue); equal hills go to this player",
                                "先手", "最初に置く側(赤か青)。同点の丘はこのプレイヤーのもの"),
    ("hills", "same_value_ban"): ("Same value banned", "you may not add a value your opponent already has "
                                  "at that hill (on a face-down hill, found when it is turned up)",
                                  "同じ数字の禁止", "相手がすでに置いた数字と同じ数字はその丘に置けない(裏向きの丘では公開時に判明)"),
    ("hills", "banners"): ("Banners", "each player also gets a banner (value 0) that cancels the next card "
                           "placed at its hill", "軍旗", "各プレイヤーに軍旗(0)を1枚追加。その丘に次に置かれたカードを取り消す"),
    ("hills", "highest_card"): ("Highest card", "the single highest card wins a hill, not the sum",
                                "最大のカード", "丘は合計ではなく、いちばん大きい1枚で決まる"),
    ("hills", "open_play"): ("Open play", "hands lie open and every card is placed face up",
                             "オープン", "手札を公開し、すべてのカードを表向きに置く"),
    ("hills", "hidden_values"): ("Camera reads face-down cards later",
                                 "cards laid face down are recorded as unknown and read when their hill is "
                                 "turned up (what a camera sees; set for you when a camera watches)",
                                 "裏向きのカードは後で読む",
                                 "裏向きに置いたカードは不明として記録し、丘が公開されたときに読む(カメラで見るときの方式。カメラ使用時は自動)"),
    ("spartacus", "start_player"): ("First player", "the seat that leads the first trick; a series moves it on",
                                    "先手", "最初のトリックをリードする席。シリーズでは順に回る"),
    ("spartacus", "joker"): ("Banner as joker", "the banner beats the card before it and the last card played "
                             "wins the trick; jokers score 0, no doubling",
                             "軍旗をジョーカーに", "軍旗は直前のカードに勝ち、最後に出たカードがトリックを取る。ジョーカーは0点で倍にしない"),
    ("spartacus", "joker_penalty"): ("Joker penalty", "−10 for each joker in a player's won tricks or hand at the end",
                                     "ジョーカーの罰点", "終了時、取ったトリックや手札にあるジョーカー1枚につき−10点"),
    ("spartacus", "joker_spoils_trick"): ("Joker spoils the trick", "a won trick holding a joker is worth 0",
                                          "ジョーカーでトリック無効", "ジョーカーを含むトリックは0点"),
    ("spartacus", "no_banners"): ("No banners", "play without the banner cards: 10 cards each, no doubling",
                                  "軍旗なし", "軍旗カードを使わない。各自10枚、倍にしない"),
    ("prussia", "start_player"): ("First player", "the seat that moves first (2 players: the seat playing "
                                  "Prussia's side)", "先手", "最初に動く席(2人用ではプロイセン側の席)"),
    ("prussia", "jokers"): ("Jokers", "jokers in the deck", "ジョーカー", "山札に入れるジョーカーの枚数"),
    ("prussia", "centre"): ("Centre nation", "the nation in the centre (the German Empire is easier)",
                            "中央の国", "中央に置く国(ドイツ帝国のほうがやさしい)"),
    ("prussia", "alliance"): ("Alliances", "allies in a war: joined by one red card, or by a chain of red cards "
                              "not through the enemy", "同盟", "戦争での味方: 赤カード1枚でつながる国か、敵を通らない赤カードの鎖でつながる国"),
    ("prussia", "victory_strength"): ("Strength at the end", "at the end the centre nation counts with its red "
                                      "alliance, or alone", "終了時の国力", "終了時、中央の国は赤の同盟と合わせて数えるか、単独で数えるか"),
    ("prussia", "nations"): ("Nations table", "a nations file of your own (default: this edition's table)",
                             "国の表", "自分で用意した国のファイル(既定: この版の表)"),
    ("chains", "start_player"): ("First player", "the seat that plays first", "先手", "最初に手番を行う席"),
    ("chains", "ten_not_first"): ("10 not first", "the terminal 10 may be taken only after one of 1–9 "
                                  "(automatic: on with several players, off alone)",
                                  "10は最初に取れない", "終端の10は1〜9のどれかを取った後でだけ取れる(自動: 複数人ではあり、1人ではなし)"),
    ("chains", "misfit"): ("A card that does not fit", "when a card turned over into the work area does not fit: "
                           "the whole work area is ruined, or only that card goes",
                           "合わないカード", "作業場にめくったカードが合わないとき: 作業場全体を失うか、そのカードだけを失うか"),
}
"""Each game option in a player's words (the engines' ``Option.help`` is written for developers)."""

CHOICES: dict[tuple[str, str], dict[str, tuple[str, str]]] = {
    ("hills", "start_player"): {"0": ("red", "赤"), "1": ("blue", "青")},
    ("prussia", "centre"): {"prussia": ("Prussia", "プロイセン"), "german_empire": ("German Empire", "ドイツ帝国")},
    ("prussia", "alliance"): {"direct": ("one red card (direct)", "赤カード1枚(直接)"),
                              "chain": ("a chain of red cards", "赤カードの鎖")},
    ("prussia", "victory_strength"): {"alliance": ("with its alliance", "同盟と合わせて"),
                                      "alone": ("alone", "単独")},
    ("chains", "ten_not_first"): {"auto": ("automatic", "自動"), "on": ("on", "あり"), "off": ("off", "なし")},
    ("chains", "misfit"): {"ruin": ("the work area is ruined", "作業場を失う"),
                           "card_only": ("only that card goes", "そのカードだけ")},
}
"""Option values in words; a value not listed reads as itself (a number)."""


def option_words(game: str, name: str, lang: str, fallback: str = "") -> tuple[str, str]:
    """An option's name and description in ``lang`` (the identifier and the engine's help if no
    words were written for it)."""
    words = OPTIONS.get((game, name))
    if words is None:
        return name, fallback
    return (words[2], words[3]) if lang == "ja" else (words[0], words[1])


def choice_words(game: str, name: str, value: object, lang: str) -> str:
    """One value of an option in ``lang``."""
    words = CHOICES.get((game, name), {}).get(str(value))
    return str(value) if words is None else (words[1] if lang == "ja" else words[0])


def player_count(low: int, high: int, lang: str) -> str:
    """"2 players", "3–5 players" / 「2人」「3〜5人」."""
    if lang == "ja":
        return f"{low}人" if low == high else f"{low}〜{high}人"
    return f"{low} players" if low == high else f"{low}–{high} players"


def add_strings(table: dict[str, tuple[str, str]]) -> None:
    """Add a blueprint's own (English, Japanese) strings to ``STRINGS``; a key that already stands
    with other words is an error (one area's words would show in another's place)."""
    clash = sorted(k for k, v in table.items() if STRINGS.get(k, v) != v)
    if clash:
        raise ValueError(f"i18n keys already used with other words: {', '.join(clash)}")
    STRINGS.update(table)


def t(key: str, lang: str) -> str:
    """The UI string ``key`` in ``lang`` (English if the language is unknown)."""
    en, ja = STRINGS.get(key, (key, key))
    return ja if lang == "ja" else en


def pick(text: str, ja: str, lang: str) -> str:
    """The Japanese text when wanted and present, else the English."""
    return ja if lang == "ja" and ja else text
