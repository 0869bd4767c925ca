"""The chat page in a real headless Chromium, against `concierge serve` with the offline planner.

Each test leaves a screenshot in test-artifacts/web/. Every request the page makes is
recorded: none may leave 127.0.0.1, and the page may log no error but the 401 of its
signed-out start.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browsers import chromium
from playwright.sync_api import Browser, Locator, Page, expect
from web_fakes import Served, concierge_serve, farm_sales

from concierge.demo.bootstrap import open_pipeline

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
TIMEOUT_MS = 30_000
FARM_TODAY, POS_TODAY = "2025-05-15", "2026-08-31"


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> Iterator[Callable[[str], Served]]:
    """`concierge serve` with both demo catalogs, one server per clock (--today), started when first asked for."""
    started: dict[str, Served] = {}
    with ExitStack() as stack:

        def at(today: str) -> Served:
            if today not in started:
                url = f"sqlite:///{tmp_path_factory.mktemp('browser') / 'concierge.db'}"
                started[today] = stack.enter_context(concierge_serve(url, "--today", today))
            return started[today]

        yield at


@pytest.fixture
def served(servers, request) -> Served:
    """The farm transcripts' clock unless the test is marked with another."""
    marker = request.node.get_closest_marker("today")
    return servers(marker.args[0] if marker else FARM_TODAY)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def _page(browser: Browser, served: Served, request, **context) -> Iterator[Page]:
    ctx = browser.new_context(locale="ja-JP", **context)
    ctx.set_default_timeout(TIMEOUT_MS)
    page = ctx.new_page()
    urls: list[str] = []
    problems: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.goto(served.url + "/")
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        ctx.close()
    outside = [u for u in urls if urlsplit(u).hostname != "127.0.0.1" and not u.startswith("data:")]
    assert outside == []
    allowed = ["401 (Unauthorized)", *(m.args[0] for m in request.node.iter_markers("console_error"))]
    assert [p for p in problems if not any(a in p for a in allowed)] == []


@pytest.fixture
def page(browser, served, request) -> Iterator[Page]:
    yield from _page(browser, served, request, viewport={"width": 1280, "height": 900})


@pytest.fixture
def phone(browser, served, request) -> Iterator[Page]:
    yield from _page(browser, served, request, viewport={"width": 390, "height": 844}, has_touch=True,
                     is_mobile=True)


def sign_in(page: Page, served: Served, name: str) -> None:
    page.fill("#signin-name", name)
    page.fill("#signin-password", served.passwords[name])
    page.press("#signin-password", "Enter")
    expect(page.locator("#app")).to_be_visible()


def ask(page: Page, text: str) -> Locator:
    """Type the question, press Enter, and return the reply once it has arrived."""
    before = page.locator(".msg.assistant").count()
    page.fill("#input", text)
    page.press("#input", "Enter")
    reply = page.locator(".msg.assistant").nth(before)
    expect(reply.locator(".answer, .confirm-card").first).to_be_visible()
    expect(page.locator("#send")).to_be_enabled()
    return reply


def digits(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d)", "", text)


def test_admin_sees_last_weeks_sales_as_a_table_with_its_trace(page, served):
    sign_in(page, served, "admin")
    reply = ask(page, "顧客コード0009と0010の、先週の販売データを見せて。")
    table = reply.locator(".result table")
    expect(table).to_have_count(1)
    assert "1050" in digits(table.inner_text()) and "キュウリ15本" in table.inner_text()
    assert "1050" in digits(reply.locator(".answer").inner_text())
    reply.locator("details.trace summary").click()
    trace = reply.locator("details.trace table").inner_text()
    assert trace.count("get_sales") == 2 and "0010" in trace and "2025-05-05" in trace
    assert re.search(r"r_[0-9a-f]{10}", trace)
    assert "SELECT" not in page.content()


@pytest.mark.today(POS_TODAY)
def test_products_that_fell_since_last_week_and_daily_sales_come_with_charts(page, served):
    sign_in(page, served, "admin")
    reply = ask(page, "先週から売上が落ちた商品は？")
    result = reply.locator(".result[data-tool=compare_periods]")
    expect(result.locator("canvas")).to_be_visible()
    box = result.locator("canvas").bounding_box()
    assert box["width"] > 200 and box["height"] > 200
    answer = digits(reply.locator(".answer").inner_text())
    assert "ハンバーグ弁当" in answer and "31900" in answer
    assert "ハンバーグ弁当" in result.locator("table").inner_text()

    daily = ask(page, "先週のハンバーグ弁当の日別売上を見せて").locator(".result[data-tool=daily_sales]")
    expect(daily.locator("canvas")).to_be_visible()
    assert daily.locator("tbody tr").count() == 7 and "2026-08-24" in daily.locator("table").inner_text()
    result.scroll_into_view_if_needed()  # the screenshot shows the bar chart


def test_a_sale_registered_through_the_card_is_found_by_the_next_question(page, served):
    database = open_pipeline(["farm"], served.database)
    try:
        before = farm_sales(database, "0016")
        sign_in(page, served, "admin")
        reply = ask(page, "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。")
        card = reply.locator(".confirm-card")
        shown = card.inner_text()
        assert "かぼちゃ4個" in shown and "2025年5月6日(火)" in shown and "600円" in shown and "松本理恵" in shown
        assert "add_sale" not in shown and "code_customer" not in shown
        expect(card.locator("button", has_text="確定")).to_be_visible()
        expect(card.locator("button", has_text="取消")).to_be_visible()
        assert farm_sales(database, "0016") == before  # nothing written before 確定

        card.locator("button", has_text="確定").click()
        done = page.locator(".msg.assistant").nth(1)
        expect(done.locator(".answer")).to_be_visible()
        expect(card.locator("button")).to_have_count(0)  # the card cannot be pressed again
        expect(card.locator("h3")).to_have_text("確定しました")
        assert "まだ" not in card.inner_text()  # no question left above what happened
        [new] = [r for r in farm_sales(database, "0016") if r not in before]
        assert (new["products"], new["price"], str(new["sale_date"])) == ("かぼちゃ4個", 600, "2025-05-06")
        assert new["sales_number"] in done.inner_text()

        found = ask(page, "顧客コード0016の今月の販売データを見せて。")
        table = found.locator(".result table").inner_text()
        assert new["sales_number"] in table and "かぼちゃ4個" in table and "2025-05-06" in table
        assert len(farm_sales(database, "0016")) == len(before) + 1
    finally:
        database.close()


def test_a_card_left_for_another_question_says_so_and_a_typed_yes_confirms_the_next(page, served):
    database = open_pipeline(["farm"], served.database)
    try:
        before = farm_sales(database, "0016")
        sign_in(page, served, "admin")
        first = ask(page, "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。")
        ask(page, "顧客コード0009の先週の販売データを見せて。")
        stale = first.locator(".confirm-card")
        expect(stale.locator("h3")).to_have_text("取り下げました")  # never 確定しました: nothing was written
        expect(stale.locator("button")).to_have_count(0)
        assert farm_sales(database, "0016") == before

        card = ask(page, "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。") \
            .locator(".confirm-card")
        done = ask(page, "はい、お願いします")
        expect(card.locator("h3")).to_have_text("確定しました")
        [new] = [r for r in farm_sales(database, "0016") if r not in before]
        assert new["sales_number"] in done.inner_text()

        page.reload()  # the history: each old card as its words, a list, and what became of it
        expect(page.locator("#app")).to_be_visible()
        page.locator("#sessions button.open").first.click()
        old = page.locator(".msg.assistant").first
        expect(old.locator(".answer ul li").first).to_have_text("顧客コード: 0016")
        expect(old.locator(".card-ended")).to_have_text("取り下げました")
        expect(page.locator(".card-ended.settled-confirmed")).to_have_text("確定しました")
    finally:
        database.close()


def test_on_a_phone_nothing_is_wider_than_the_screen_with_the_trace_open(phone, served):
    sign_in(phone, served, "admin")
    reply = ask(phone, "顧客コード0009と0010の先週の販売データを見せて。")
    reply.locator("details.trace summary").click()
    expect(reply.locator("details.trace table")).to_be_visible()
    width = phone.evaluate("window.innerWidth")
    assert phone.evaluate("document.documentElement.scrollWidth") <= width
    for box in (reply.bounding_box(), reply.locator(".answer").bounding_box()):
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (box, width)


def test_tanaka_gets_nothing_about_customer_0002(page, served):
    sign_in(page, served, "tanaka")
    reply = ask(page, "顧客コード0002のお客様の先月の販売実績が欲しい。")
    expect(reply.locator(".result table")).to_have_count(0)
    shown = digits(reply.inner_text())
    for secret in ("John Smith", "トマト", "340", "640", "980"):
        assert secret not in shown
    assert "0002" in shown  # the answer says the customer was not found, not who it is


def test_on_a_phone_enter_sends_shift_enter_breaks_the_line_and_conversations_reopen(phone, served):
    sign_in(phone, served, "admin")
    phone.fill("#input", "佐藤さんの")
    phone.press("#input", "Shift+Enter")
    phone.type("#input", "顧客コードを教えて。")
    assert phone.input_value("#input") == "佐藤さんの\n顧客コードを教えて。"
    expect(phone.locator(".msg.user")).to_have_count(0)
    phone.press("#input", "Enter")
    reply = phone.locator(".msg.assistant").first
    expect(reply.locator(".answer")).to_be_visible()
    assert "0001" in reply.inner_text() and "0009" in reply.inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone

    phone.reload()
    expect(phone.locator("#app")).to_be_visible()  # still signed in
    phone.click("#menu")
    phone.locator("#sessions button", has_text="佐藤さんの").first.click()
    expect(phone.locator(".msg.user").first).to_have_text("佐藤さんの\n顧客コードを教えて。")
    assert "0009" in phone.locator(".msg.assistant .result table").first.inner_text()


@pytest.mark.today(POS_TODAY)
def test_the_page_speaks_english_too(page, served):
    page.click("#signin .lang-toggle")
    expect(page.locator("#signin button[type=submit]")).to_have_text("Sign in")
    sign_in(page, served, "admin")
    expect(page.locator("#new-chat")).to_have_text("+ New chat")
    reply = ask(page, "Which products dropped in sales last week compared with the week before?")
    expect(reply.locator(".result[data-tool=compare_periods] canvas")).to_be_visible()
    assert "ハンバーグ弁当" in reply.locator(".answer").inner_text()
    assert "Change: -12,930 (-2.0%)" in reply.locator(".result .totals").inner_text()


# --- accessibility, the keyboard, and the README's screenshots --------------------------------------------
AXE = Path(__file__).with_name("a11y") / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def serious_violations(page: Page) -> list[str]:
    """What axe-core (run inside the page) reports as serious or critical, one line each."""
    assert AXE.exists(), f"{AXE} is missing: npm ci --prefix tests/web/a11y (bash .ci/run does)"
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                          ".filter(v => ['serious', 'critical'].includes(v.impact))"
                          ".map(v => `${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).join(', ')})`)")
    return list(found)


@pytest.fixture
def audited(browser, served, request) -> Iterator[Page]:
    """The page at 1280×800, where axe-core may be added (the page's own policy allows no script but its own)."""
    yield from _page(browser, served, request, viewport={"width": 1280, "height": 800}, bypass_csp=True)


def test_axe_finds_nothing_serious_on_sign_in_chat_card_and_history(audited, served):
    page = audited
    assert serious_violations(page) == []  # the sign-in view
    sign_in(page, served, "admin")
    assert serious_violations(page) == []  # the chat's start, with its suggestion cards
    ask(page, "顧客コード0009と0010の先週の販売データを見せて。")
    ask(page, "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。")
    assert serious_violations(page) == []  # an answer with its table, and a card waiting for a yes
    page.reload()
    expect(page.locator("#app")).to_be_visible()
    page.locator("#sessions button.open").first.click()
    expect(page.locator(".confirm-card")).to_be_visible()
    assert serious_violations(page) == []  # a conversation reopened from the history


def test_the_keyboard_alone_signs_in_asks_and_confirms(page, served):
    expect(page.locator("#signin-name")).to_be_focused()  # the focus starts in the user name
    page.keyboard.type("admin")
    page.keyboard.press("Tab")
    page.keyboard.type(served.passwords["admin"])
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_be_visible()
    expect(page.locator("#input")).to_be_focused()
    page.keyboard.type("販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。")
    page.keyboard.press("Enter")
    card = page.locator(".confirm-card")
    expect(card).to_be_visible()
    expect(page.locator("#send")).to_be_enabled()
    for _ in range(40):  # Tab forward until the card's 確定 has the focus
        if page.evaluate("document.activeElement && document.activeElement.classList.contains('confirm')"):
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(card.locator("h3")).to_have_text("確定しました")


SIZES = {"desktop": {"viewport": {"width": 1280, "height": 800}},
         "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}


@pytest.fixture(params=list(SIZES))
def sized(browser, served, request) -> Iterator[tuple[str, Page]]:
    for page in _page(browser, served, request, **SIZES[request.param]):
        yield request.param, page


def test_the_readme_screenshots_are_taken_from_the_running_page(sized, served):
    name, page = sized
    size = SIZES[name]["viewport"]
    sign_in(page, served, "admin")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"start-{name}.png"))
    ask(page, "顧客コード0009と0010の先週の販売データを見せて。")
    page.screenshot(path=str(SCREENSHOTS / f"answer-{name}.png"))
    card = ask(page, "販売登録して。顧客コード0012のお客様に、昨日、キュウリ10本を700円で売った。")
    card.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"card-{name}.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


def test_staff_see_words_not_engineering_and_take_a_table_away(page, served):
    sign_in(page, served, "tanaka")
    expect(page.locator("#setup")).to_have_text("")  # the provider and the demo clocks are the admin's
    assert "ターミナル" not in page.locator("body").inner_text()
    reply = ask(page, "顧客コード0017の販売データを見せて。")
    caption = reply.locator(".result .caption").inner_text()
    assert "get_sales" not in caption and "販売データを返します" in caption
    reply.locator("details.trace summary").click()
    trace = reply.locator("details.trace").inner_text()
    assert "完了" in trace and "ミリ秒" in trace and " ok" not in trace
    first = reply.locator(".result table tbody td").first
    assert first.evaluate("td => getComputedStyle(td).position") == "sticky"  # the first column stays in view
    with page.expect_download() as got:
        reply.locator("button.csv").click()
    text = Path(got.value.path()).read_text("utf-8-sig")
    assert text.splitlines()[0].startswith("販売番号,顧客コード,氏名,販売日,商品,金額")
    assert "0017" in text
    expect(reply.locator(".followups button.suggestion").first).to_be_visible()


@pytest.mark.console_error("500 (Internal Server Error)")
def test_an_error_is_set_apart_from_answers(page, served):
    sign_in(page, served, "admin")
    page.route("**/api/chat", lambda route: route.fulfill(status=500, body='{"detail": "the database is down"}',
                                                         content_type="application/json"))
    page.fill("#input", "顧客コード0009の先週の販売データを見せて。")
    page.press("#input", "Enter")
    error = page.locator(".answer.error")
    expect(error).to_be_visible()
    assert error.get_attribute("role") == "alert" and "うまくいきませんでした" in error.inner_text()
    assert error.evaluate("e => getComputedStyle(e).borderLeftStyle") == "solid"


def test_the_pages_own_logic_quotes_csv_writes_yen_and_keeps_markup_out(page, served):
    sign_in(page, served, "admin")
    got = page.evaluate("""() => ({
        csv: csv(["products", "price"],
                 [{products: 'かぼちゃ "大", 4個', price: 600}, {products: "a\\nb", price: null}]),
        tsv: tsv(["price"], [{price: 1050}]),
        yen: [yen(1200), yen(-300, true), yen(300, true), yen(0, true)],
        html: answerText("**<img src=x onerror=alert(1)>** and `<b>`", [], false).innerHTML,
    })""")
    assert got["csv"] == '\ufeff商品,金額\r\n"かぼちゃ ""大"", 4個",600\r\n"a\nb",'
    assert got["tsv"] == "金額\n1050"
    assert got["yen"] == ["1,200円", "-300円", "+300円", "0円"]
    assert "<img" not in got["html"] and "&lt;img" in got["html"] and "<code>&lt;b&gt;</code>" in got["html"]


def test_a_conversation_is_renamed_and_deleted_from_the_list(page, served):
    sign_in(page, served, "admin")
    ask(page, "佐藤さんの顧客コードを教えて。")
    row = page.locator("#sessions li.session").first
    page.once("dialog", lambda dialog: dialog.accept("佐藤さんの件"))
    row.locator("button.rename").click()
    expect(page.locator("#sessions li.session .title").first).to_have_text("佐藤さんの件")
    page.fill("#search", "佐藤さんの件")
    expect(page.locator("#sessions li.session")).to_have_count(1)
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#sessions li.session button.delete").first.click()
    expect(page.locator("#sessions li.session")).to_have_count(0)
    expect(page.locator("#welcome")).to_be_visible()  # the conversation open was the one deleted


# Holds back the answers to the conversation lists read while `window.holding` is true, until the test lets them go.
HOLD_LISTS = """() => {
  const real = window.fetch;
  window.held = [];
  window.holding = false;
  window.fetch = async (url, options = {}) => {
    const hold = window.holding && /^\\/api\\/sessions(\\?|$)/.test(String(url)) && (options.method || "GET") === "GET";
    const res = await real(url, options);
    if (hold) await new Promise((resume) => window.held.push(resume));
    return res;
  };
}"""


def test_a_list_read_before_a_rename_that_comes_back_after_it_does_not_bring_the_old_name_back(page, served):
    sign_in(page, served, "admin")
    ask(page, "佐藤さんの顧客コードを教えて。")
    page.evaluate(HOLD_LISTS)
    page.evaluate("() => { window.holding = true; }")
    ask(page, "顧客コード0009の先週の販売データを見せて。")
    page.wait_for_function("() => window.held.length === 1")  # the list read after this answer: the old name
    page.evaluate("() => { window.holding = false; }")
    page.once("dialog", lambda dialog: dialog.accept("佐藤さんの件"))
    page.locator("#sessions li.session button.rename").first.click()
    title = page.locator("#sessions li.session .title").first
    expect(title).to_have_text("佐藤さんの件")
    page.evaluate("() => window.held.splice(0).forEach((resume) => resume())")
    page.wait_for_timeout(500)
    expect(title).to_have_text("佐藤さんの件")


def test_switching_the_language_redraws_the_open_conversation(page, served):
    sign_in(page, served, "admin")
    reply = ask(page, "顧客コード0009の先週の販売データを見せて。")
    assert "行" in reply.locator(".result .caption").inner_text()
    page.locator("#app .lang-toggle").click()
    expect(page.locator(".msg.assistant .result .caption").first).to_contain_text("row")
    expect(page.locator("#new-chat")).to_have_text("+ New chat")
