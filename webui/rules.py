"""Short rule summaries of the five games, written for this project in English and Japanese.

They are reminders for players at the table (the full specifications are shared/rules/*.md); each
section has an anchor so a prompt that cites a rule can link straight to it.
"""
from __future__ import annotations

from typing import NamedTuple


class Section(NamedTuple):
    """One part of a rules summary: anchor, titles and text in both languages, citation keywords."""

    anchor: str
    title: str
    title_ja: str
    text: str
    text_ja: str
    keywords: tuple[str, ...] = ()


RULES: dict[str, list[Section]] = {
    "wheel": [
        Section("setup", "Setup", "準備",
                "The 25 cards (5 colours × values 1–5) lie face up in a circle; the pawn stands "
                "between two of them.",
                "25枚(5色×1〜5)を表向きで円に並べ、コマをカードの間に置く。", ("setup", "circle")),
        Section("turn", "Your turn", "手番",
                "Move the pawn clockwise to the 1st, 2nd or 3rd card still in the circle (gaps are "
                "skipped) and take that card.",
                "コマを時計回りに、円に残っている1〜3枚先のカードまで進め(空きは数えない)、そのカードを取る。",
                ("pawn", "take", "ahead", "target")),
        Section("colour", "A colour is complete", "色がそろう",
                "When the last card of a colour leaves the circle, everyone scores the values of "
                "their own cards of that colour.",
                "ある色の最後のカードが円からなくなると、全員がその色の自分のカードの数値を得点する。",
                ("colour", "tribe")),
        Section("end", "The end: a value falls", "終了:ある数がなくなる",
                "When the 5th card of a value is taken the game ends at once: everyone loses the sum "
                "of their cards of that value. A colour completed by the same take scores first. "
                "The game also ends when the circle is empty.",
                "ある数の5枚目が取られた瞬間に終了し、全員がその数の自分のカードの合計を失う。同じ取得で色がそろえば先に得点。円が空になっても終了。",
                ("value", "end", "falls", "empty")),
        Section("variants", "Variants", "バリアント",
                "Single-card fall: once per game you may discard the card you just took; it can no "
                "longer complete its colour or value. Colour and value: a completed value scores "
                "5,4,3,2,1 for cards 1–5, and the game ends once a colour and a value have scored.",
                "単独カードの没落:1ゲームに1回、取った直後のカードを捨ててよい(その色と数はそろわなくなる)。色と値の精算:そろった数は1→5…5→1点で得点し、色と数が1つずつ精算されたら終了。",
                ("discard", "single", "variant")),
    ],
    "hills": [
        Section("setup", "Setup", "準備",
                "One player holds red 1–9, the other blue 1–9. The seven hills (worth 1–7) lie in "
                "a row between you. The start player wins ties.",
                "一人が赤1〜9、もう一人が青1〜9を持つ。価値1〜7の七つの丘を間に並べる。同点はスタートプレイヤーの勝ち。",
                ("setup",)),
        Section("turn", "Your turn", "手番",
                "Place one card face down on your side of any hill — except the hill where your "
                "opponent just placed.",
                "手札から1枚を好きな丘の自分側に伏せて置く。ただし相手が直前に置いた丘には置けない。",
                ("forbidden", "opponent just placed", "hill", "place")),
        Section("reveal", "Revealing", "公開",
                "Cards at a hill stay hidden until both players have a card there; then all its "
                "cards turn face up, and later cards there are placed face up.",
                "丘に両者のカードがそろうまでは誰も見られない。そろった時点で全部表にし、以後そこへは表向きで置く。",
                ("reveal", "face")),
        Section("scoring", "Scoring", "得点",
                "When all cards are played, each hill goes to the higher sum (tie: start player); a "
                "lone player takes it; an empty hill goes to nobody. Add your hills' numbers.",
                "全カードを出したら、各丘は合計の大きい方(同点はスタートプレイヤー)、片方だけならその人が取る。取った丘の数字の合計で勝負。",
                ("scoring", "sum", "last card")),
        Section("variants", "Variants", "バリアント",
                "Same value banned: you may not add a value your opponent already has at that hill "
                "(a hidden violation is removed when revealed). Banner: a banner cancels the next "
                "card placed at its hill. Highest card / open play: the single highest card wins, "
                "and everything is face up.",
                "同じ数の禁止:相手が置いた数と同じ数は置けない(伏せの違反は公開時に除外)。軍旗:次にその丘へ置かれたカードを打ち消す。最高札/オープン:一番大きいカードで勝負、全部表向き。",
                ("same value", "banner", "highest", "open")),
    ],
    "spartacus": [
        Section("setup", "Setup", "準備",
                "Each player holds one colour: cards 1–10 and a banner.",
                "各自1色の1〜10と軍旗1枚を手札にする。", ("setup",)),
        Section("trick", "A trick: low beats high", "トリック:小さい数が強い",
                "The leader plays any card. In turn, each player plays a lower number or a banner, "
                "or passes (and is out of this trick). Until a number is out, you must play. When "
                "the turn returns to the lowest number's owner, they win the trick; the next player "
                "to their left leads.",
                "リードは何を出してもよい。順に、より小さい数か軍旗を出すか、パスする(そのトリックから抜ける)。数字が出るまでは必ず出す。最小の数を出した人に手番が戻ったらその人がトリックを取り、その左隣が次のリード。",
                ("lower", "pass", "trick", "lead")),
        Section("end", "The end", "終了",
                "The game ends as soon as someone plays their last card; the trick in play goes to "
                "its lowest number (nobody if only banners).",
                "誰かが最後の手札を出した瞬間に終了。場のトリックはその時点の最小の数の人へ(軍旗だけなら誰のものでもない)。",
                ("last card", "end")),
        Section("scoring", "Scoring", "得点",
                "Each won trick: sum of its numbers, doubled once per banner in it. Cards left in "
                "hand count against you (doubled if your banner is still in hand).",
                "獲得トリックごとに数字の合計、軍旗1枚ごとに2倍。手札の残りはマイナス(軍旗が残っていれば2倍)。",
                ("score", "banner", "worth")),
        Section("variants", "Variants", "バリアント",
                "Banner as joker: a joker beats the card before it; the last card played wins the "
                "trick. No banners: 10 cards each.",
                "ジョーカー:直前のカードに勝つ。最後に出した人がトリックを取る。軍旗なし:各10枚。",
                ("joker",)),
    ],
    "prussia": [
        Section("setup", "Setup", "準備",
                "Twelve nations form a clock (A at 1 … Q at 12), Prussia in the centre, era I. "
                "Shuffle the playing cards with jokers.",
                "12の国を時計の形に(Aが1時…Qが12時)、中央にプロイセン、時代I。ジョーカー入りのトランプを切る。",
                ("setup",)),
        Section("draw", "Draw and place", "引いて置く",
                "Draw a card: its rank names the event nation (K = the centre). Place it in an empty "
                "slot of that nation: its ring edges first; a nation at 3, 6, 9 or 12 may use its "
                "Prussia edge once both ring edges are filled. Red = alliance, black = hostility. A "
                "joker removes one relation card of your choice.",
                "カードを引き、ランクの国がイベント国(Kは中央)。その国の空いた枠に置く:まず両隣との枠、3・6・9・12時の国は両隣が埋まっていればプロイセンとの枠。赤は同盟、黒は敵対。ジョーカーは関係カード1枚を取り除く。",
                ("place", "slot", "edge", "joker", "draw")),
        Section("war", "War check", "戦争判定",
                "If the event nation's slots are full, pick the ignition card (same rank, else same "
                "suit, else strongest rank; suits ♠>♥>♦>♣). Red: follow the alliance to the next "
                "nation and pick again. Black: war. Each side adds its red allies' strengths for the "
                "current era; the weaker nation surrenders and its relation cards are discarded.",
                "枠が全部埋まっていたら着火カードを選ぶ(同ランク→同スート→最強ランク、スートは♠>♥>♦>♣)。赤なら同盟先の国へ進んで選び直す。黒なら戦争:各陣営は赤で結ばれた同盟国の現時代の強さを足し、弱い方の国が降伏して関係カードを捨てる。",
                ("ignition", "war", "surrender", "alliance", "red", "black")),
        Section("era", "Eras and the end", "時代と終了",
                "Each K drawn advances the era (I → II → III → IV). After the 4th K: victory if the "
                "centre's alliance is at least as strong as all other nations, else a historical "
                "draw. If Prussia surrenders: defeat. If every clock nation surrenders: great "
                "victory.",
                "Kを引くたびに時代が進む(I→II→III→IV)。4枚目のKの後、中央の同盟が他国の合計以上なら勝利、未満なら引分。プロイセンが降伏したら敗北、時計の国がすべて降伏したら大勝利。",
                ("era", "king", "victory", "defeat")),
        Section("two", "Two players", "二人戦",
                "Prussia's side against all other nations. 13 cards each; on your turn play a card "
                "from hand or draw (not twice in a row while you hold cards).",
                "プロイセン側と他国側。各13枚。手番には手札から1枚出すか山札から引く(手札がある間は2回続けて引けない)。",
                ("hand", "two")),
    ],
    "chains": [
        Section("setup", "Setup", "準備",
                "Each player takes one card of each value 1–10 from their Pairs deck as terminal "
                "cards (shared row in the centre) and shuffles the other 45.",
                "各自ペアーズデッキから1〜10を1枚ずつ終端カードとして中央に並べ、残り45枚を切る。", ("setup",)),
        Section("turn", "Your turn", "手番",
                "Build 10-9-8… in your work area. Actions: deck → work area (continue); deck → an "
                "empty temporary slot (turn ends); temporary → work area (continue); close the chain "
                "with your terminal card one below its top and score it (turn ends). A misfit from "
                "the deck ruins the work area.",
                "作業場に10-9-8…と並べる。行動:山札→作業場(続行)、山札→空いた一時置き場(終了)、一時置き場→作業場(続行)、作業場の一番下より1小さい自分の終端カードで締めて得点(終了)。山札から合わないカードが出たら作業場は死ぬ。",
                ("work", "temporary", "terminal", "deck", "fit")),
        Section("stop", "Stop cards", "打ち止め",
                "For each value, once enough terminal cards of it are taken (2 players: 1; else "
                "60 % of the players, rounded up), the rest of that value are stopped. The 10 may not "
                "be taken first.",
                "各数ごとに、取られた終端カードが閾値(2人なら1、他は人数の6割切り上げ)に達すると、その数の残りは打ち止め。10は最初に取れない。",
                ("stop", "threshold", "10", "ten")),
        Section("end", "Out and scoring", "脱落と得点",
                "A player who cannot act or has no terminal card left is out. Scores per terminal "
                "taken: 1 → 5; 2–4 → 3; 5–7 → 2; 8–10 → 1 (perfect: 23). Ties: the larger smallest "
                "missing terminal wins.",
                "行動できない、または使える終端カードがない人は脱落。得点:1→5、2〜4→3、5〜7→2、8〜10→1(パーフェクト23)。同点は取れなかった最小の終端カードが大きい方の勝ち。",
                ("out", "score", "tie")),
    ],
}


def rule_anchor(game: str, citation: str) -> str:
    """The anchor of the summary section a rule citation is about ("" when none matches)."""
    text = citation.lower()
    for section in RULES.get(game, []):
        if any(k in text for k in section.keywords):
            return section.anchor
    return ""
