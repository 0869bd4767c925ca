"""A family member talking to the home's lights and TV through the offline planner, on the SwitchBot SIMULATOR:
what the devices are afterwards is what was said, levels said against the ones they have (もう少し暗く), a value
said as another device's (キッチンと同じ色に), and colours the catalog does not name are asked, never guessed."""

from __future__ import annotations

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider

pytestmark = pytest.mark.anyio


class Talk:
    def __init__(self, home):
        self.home = home
        self.agent = Agent(home, OfflineProvider(home))
        self.session_id: str | None = None

    async def say(self, text: str):
        turn = await self.agent.ask(text, self.home.user("hanako"), session_id=self.session_id)
        self.session_id = turn.session_id
        return turn


@pytest.fixture
def talk(home) -> Talk:
    return Talk(home)


def sent(sim) -> list[dict]:
    return [c.body for c in sim.calls if c.method == "POST"]


async def test_a_bit_darker_is_one_step_below_the_level_set_last(talk, sim):
    await talk.say("寝室の電気つけて")
    await talk.say("明るさ半分に")
    await talk.say("もう少し暗く")
    assert sim.device("寝室の電気")["brightness"] == 40
    await talk.say("a bit brighter")
    assert sim.device("寝室の電気")["brightness"] == 50


async def test_a_level_not_known_yet_is_read_from_the_light_first(talk, sim):
    turn = await talk.say("リビングちょっと暗くしてくれる？")
    assert sim.device("リビングの電気")["brightness"] == 70  # 80 as the simulator starts
    assert [c.path.endswith("/status") for c in sim.calls if "6055F92A1B01" in c.path] == [True, False]
    assert "70%" in turn.answer


async def test_a_level_read_by_a_question_is_the_one_moved(talk, sim):
    await talk.say("キッチンの明るさ今いくつ？")
    await talk.say("ちょっと暗くして")
    assert sim.device("Kitchen Light")["brightness"] == 90


async def test_the_next_channel_is_one_after_the_channel_set(talk, sim):
    await talk.say("put channel five on")
    await talk.say("go to the next channel")
    await talk.say("前のチャンネル")
    assert [b["parameter"] for b in sent(sim)] == ["5", "6", "5"]


async def test_a_colour_said_as_another_lights_is_read_from_it_and_copied(talk, sim):
    await talk.say("寝室の電気キッチンと同じ色にして")
    assert sim.device("寝室の電気")["color"] == sim.device("Kitchen Light")["color"]
    assert sim.device("Kitchen Light")["color"] == "255:200:150"  # the one copied from is left alone


async def test_a_brightness_said_as_another_lights_is_copied_in_english(talk, sim):
    await talk.say("make the bedroom light as bright as the living room light")
    await talk.say("make the bedroom light the same colour as the kitchen light")
    assert sim.device("寝室の電気")["brightness"] == 80 and sim.device("寝室の電気")["color"] == "255:200:150"


@pytest.mark.parametrize("said", ["set the kitchen light to warm white", "make the kitchen light light blue",
                                  "キッチンの電気を薄い青にして", "キッチンの電気明るい赤にして"])
async def test_a_colour_the_catalog_does_not_name_is_asked_not_taken_for_a_near_one(talk, sim, said):
    turn = await talk.say(said)
    assert sent(sim) == []
    assert "255:" not in turn.answer and ("white" in turn.answer or "白" in turn.answer)  # the names there are


@pytest.mark.parametrize("said", ["make the kitchen light red", "turn the kitchen light red"])
async def test_the_light_of_a_lights_name_is_not_a_shade_of_the_colour_after_it(talk, sim, said):
    await talk.say(said)
    assert sim.device("Kitchen Light")["color"] == "255:0:0"


@pytest.mark.parametrize("said", ["寝室の扇風機つけて", "リビングのカーテン閉めて", "turn on the bedroom fan",
                                  "switch on the living room heater please"])
async def test_a_device_no_catalog_knows_said_with_a_rooms_name_switches_nothing(talk, sim, said):
    turn = await talk.say(said)
    assert sent(sim) == [] and "つけました" not in turn.answer and " now" not in turn.answer


@pytest.mark.parametrize("said", ["寝室のライトつけて", "寝室の電球つけて", "turn on the bedroom lamp",
                                  "寝室のほうつけて"])
async def test_a_lights_other_names_said_with_its_room_switch_that_light_alone(talk, sim, said):
    await talk.say(said)
    assert [b["command"] for b in sent(sim)] == ["turnOn"] and sim.device("寝室の電気")["power"] == "on"


@pytest.mark.parametrize("said", ["全部の電気の状態を教えて", "how are all the lights?"])
async def test_a_question_asked_of_every_light_reads_each_one(talk, sim, said):
    turn = await talk.say(said)
    assert sent(sim) == [] and all(name in turn.answer for name in ("リビングの電気", "寝室の電気", "Kitchen Light"))
    assert "ついています" in turn.answer or " is on " in turn.answer


async def test_an_answer_to_which_light_completes_the_command_asked(talk, sim):
    first = await talk.say("お風呂の電気つけて")
    assert sent(sim) == [] and "玄関の電気" in first.answer
    await talk.say("じゃ寝室の")
    assert sim.device("寝室の電気")["power"] == "on"


async def test_a_level_given_after_the_question_goes_to_the_light_named_before(talk, sim):
    await talk.say("リビングの明るさ変えて")
    await talk.say("じゃあ60%で")
    assert sim.device("リビングの電気")["brightness"] == 60


async def test_just_the_tv_switches_the_tv_not_a_light(talk, sim):
    await talk.say("じゃあテレビだけつけて")
    assert sim.device("テレビ")["power"] == "on"
    assert len(sent(sim)) == 1


async def test_all_the_lights_after_one_light_is_every_light(talk, sim):
    await talk.say("リビングの電気消して")
    turn = await talk.say("turn off all the lights")
    assert [sim.device(n)["power"] for n in ("リビングの電気", "寝室の電気", "Kitchen Light")] == ["off"] * 3
    assert "offline" in turn.answer  # 玄関の電気, offline in the simulator, is said so, not left out


def power(sim) -> dict[str, str]:
    return {n: sim.device(n)["power"] for n in ("リビングの電気", "寝室の電気", "Kitchen Light")}


def commanded(sim) -> set[str]:
    """The devices a command was sent to, by name."""
    names = ("リビングの電気", "寝室の電気", "Kitchen Light", "玄関の電気", "テレビ")
    ids = {sim.device(n)["device_id"]: n for n in names}
    return {ids[c.path.split("/")[3]] for c in sim.calls if c.method == "POST"}


async def test_a_light_said_to_be_left_as_it_is_is_never_switched(talk, sim):
    before = power(sim)
    await talk.say("テレビ消して、電気は全部そのままで")
    assert power(sim) == before and sim.device("テレビ")["power"] == "off"
    await talk.say("リビングの電気を赤にして、寝室はそのままで")
    assert [b["command"] for b in sent(sim)] == ["turnOff", "setColor"]


@pytest.mark.parametrize("said", ["寝室以外の電気消して", "turn off all the lights except the bedroom"])
async def test_every_light_but_the_one_said_is_switched(talk, sim, said):
    await talk.say(said)
    assert commanded(sim) == {"リビングの電気", "Kitchen Light", "玄関の電気"}  # 玄関, offline, is tried and said so


async def test_a_command_said_not_to_be_made_gives_way_to_the_one_after_it(talk, sim):
    await talk.say("寝室の電気つけて")
    await talk.say("寝室は消すんじゃなくて暗くして")
    assert sim.device("寝室の電気")["power"] == "on" and sim.device("寝室の電気")["brightness"] == 90
    await talk.say("寝室は消さないで、リビングだけ消して")
    assert power(sim)["寝室の電気"] == "on" and power(sim)["リビングの電気"] == "off"
    assert [b["command"] for b in sent(sim)] == ["turnOn", "setBrightness", "turnOff"]


async def test_a_value_corrected_in_the_same_breath_replaces_the_first(talk, sim):
    await talk.say("寝室消して。あ、やっぱキッチン")
    assert commanded(sim) == {"Kitchen Light"}


async def test_them_points_back_at_every_light_just_switched(talk, sim):
    await talk.say("turn on the bedroom and kitchen lights")
    await talk.say("make them blue")
    assert sim.device("寝室の電気")["color"] == sim.device("Kitchen Light")["color"] == "0:0:255"


async def test_the_same_command_goes_to_a_device_of_another_kind_said_alone(talk, sim):
    await talk.say("all the lights on please")
    await talk.say("and the tv")
    assert sim.device("テレビ")["power"] == "on"


async def test_a_bare_number_answers_the_level_asked_for(talk, sim):
    await talk.say("チャンネル変えて")
    await talk.say("8")
    await talk.say("前のチャンネル")
    assert [b["parameter"] for b in sent(sim)] == ["8", "7"]


async def test_a_value_refused_then_said_by_a_word_replaces_it(talk, sim):
    await talk.say("リビングの明るさを150%にしてください")
    await talk.say("じゃあマックスで")
    assert sim.device("リビングの電気")["brightness"] == 100


async def test_a_level_at_the_end_of_its_range_is_said_so_and_nothing_is_sent(talk, sim):
    await talk.say("テレビを12チャンネルにして")
    turn = await talk.say("next channel")
    assert [b["parameter"] for b in sent(sim)] == ["12"] and "already 12" in turn.answer and "13" not in turn.answer
    await talk.say("寝室の電気を明るくして")  # read at 100% first: no write, its status answers
    assert [b["command"] for b in sent(sim)] == ["SetChannel"]


async def test_a_command_said_for_later_is_made_when_it_is_asked_for_now(talk, sim):
    await talk.say("寝室の電気つけて")
    turn = await talk.say("もし寝たら寝室の電気消して")
    assert sim.device("寝室の電気")["power"] == "on" and "消しました" not in turn.answer
    turn = await talk.say("今消しちゃって")
    assert sim.device("寝室の電気")["power"] == "off", turn.answer
    assert sim.device("リビングの電気")["power"] == "on"  # the light named for later, not another one


async def test_a_setting_named_with_wa_and_a_value_sets_it_and_without_one_asks_it(talk, sim):
    await talk.say("リビングの電気つけて")
    await talk.say("明るさは半分")
    assert sim.device("リビングの電気")["brightness"] == 50
    turn = await talk.say("リビングの明るさは？")
    assert "50%" in turn.answer and len(sent(sim)) == 2  # read, not set
    await talk.say("寝室の明るさは30で")
    assert sim.device("寝室の電気")["brightness"] == 30 and sim.device("リビングの電気")["brightness"] == 50


async def test_a_room_said_with_no_before_the_setting_is_that_rooms_light(talk, sim):
    turn = await talk.say("寝室の明るさを20に")
    assert sim.device("寝室の電気")["brightness"] == 20
    assert "『寝室』" in turn.answer and "『寝室の』" not in turn.answer


async def test_each_value_said_goes_with_the_light_said_right_before_it(talk, sim):
    await talk.say("リビングを赤で寝室を青にして")
    assert sim.device("リビングの電気")["color"] == "255:0:0" and sim.device("寝室の電気")["color"] == "0:0:255"
    assert len(sent(sim)) == 2  # not both lights both colours
    await talk.say("キッチンは50でリビングは20にしといて")
    assert sim.device("Kitchen Light")["brightness"] == 50 and sim.device("リビングの電気")["brightness"] == 20


@pytest.mark.parametrize("said", ["リビングとキッチン30にして", "リビングとキッチンの明るさを30にして",
                                  "set the living room and kitchen lights to 30"])
async def test_a_number_set_on_lights_is_their_level(talk, sim, said):
    await talk.say(said)
    assert sim.device("リビングの電気")["brightness"] == 30 and sim.device("Kitchen Light")["brightness"] == 30
    assert sim.device("寝室の電気")["brightness"] != 30


async def test_a_number_set_on_one_light_is_its_level_and_a_figure_is_no_number_set(talk, sim):
    await talk.say("リビング30にしといて")
    assert sim.device("リビングの電気")["brightness"] == 30
    await talk.say("リビングの色を300:0:0にして")  # out of range: asked, never a level of 0
    assert sim.device("リビングの電気")["brightness"] == 30 and len(sent(sim)) == 1


async def test_two_or_three_settings_in_one_breath_are_all_made(talk, sim):
    await talk.say("寝室の電気半分でつけといて")
    assert sim.device("寝室の電気")["power"] == "on" and sim.device("寝室の電気")["brightness"] == 50
    await talk.say("寝室消して")
    await talk.say("寝室つけて黄色にして明るさ70%")
    bedroom = sim.device("寝室の電気")
    assert (bedroom["power"], bedroom["color"], bedroom["brightness"]) == ("on", "255:255:0", 70)


async def test_a_colour_said_after_a_light_switched_on_sets_the_colour_not_the_power(talk, sim):
    await talk.say("turn on the bedroom light and make it purple")
    assert sim.device("寝室の電気")["power"] == "on" and sim.device("寝室の電気")["color"] == "128:0:128"
    await talk.say("and the kitchen one pink")
    assert sim.device("Kitchen Light")["color"] == "255:192:203"
    assert [b["command"] for b in sent(sim)] == ["turnOn", "setColor", "setColor"]
    await talk.say("turn off the living room light")
    await talk.say("and the bedroom one blue")
    assert sim.device("寝室の電気")["color"] == "0:0:255" and sim.device("寝室の電気")["power"] == "on"


@pytest.mark.parametrize("said", ["音量2つ上げといて", "音量2つ上げちゃって", "音量2つあげといて"])
async def test_a_verb_said_with_toite_or_chatte_is_the_verb(talk, sim, said):
    await talk.say("テレビつけて")
    await talk.say(said)
    assert [b["command"] for b in sent(sim)] == ["turnOn", "volumeAdd", "volumeAdd"]


async def test_a_device_there_is_not_said_with_one_there_is_leaves_that_one_done(talk, sim):
    await talk.say("テレビつけて")
    turn = await talk.say("エアコンとテレビ消して")
    assert [b["command"] for b in sent(sim)] == ["turnOn", "turnOff"] and "エアコン" in turn.answer
    turn = await talk.say("リビングとお風呂の電気消して")
    assert sim.device("リビングの電気")["power"] == "off" and "風呂" in turn.answer
    turn = await talk.say("お風呂の電気消して")  # alone: asked, nothing switched
    assert len(sent(sim)) == 3 and "あるのは" in turn.answer


async def test_settings_said_in_the_negative_are_none_made(talk, sim):
    turn = await talk.say("リビングを赤で寝室を青にしないで")
    assert sent(sim) == [] and "何も変えていません" in turn.answer
