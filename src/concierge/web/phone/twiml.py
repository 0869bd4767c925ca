"""The TwiML this server answers Twilio with, built with the `twilio` package (which escapes the text).

- a call comes in: `<Connect action=".../phone/action"><ConversationRelay url="wss://.../phone/relay"
  language=... welcomeGreeting=... interruptible="any" ...><Parameter name="concierge_call" value=.../>
  </ConversationRelay></Connect>` (the call credential, `credential`);
- the relay session ended (`end` sent, or the caller hung up): `<Dial>` the staff number for a
  handover when one is set, else `<Hangup/>`.
"""

from __future__ import annotations

from twilio.twiml.voice_response import Connect, VoiceResponse

from concierge.settings import PhoneSettings

GREETINGS = {
    "ja": "お電話ありがとうございます。ご注文をどうぞ。",
    "en": "Thank you for calling. What would you like to order?",
}
HANDOVER_WORDS = {"ja": "担当者におつなぎします。", "en": "Connecting you to a member of staff."}


def greeting(settings: PhoneSettings) -> str:
    return settings.greeting or GREETINGS[lang_of(settings.language)]


def lang_of(language: str) -> str:
    """ja for ja-JP, en for the rest: the two languages answers are written in."""
    return "ja" if language.lower().startswith("ja") else "en"


def connect(settings: PhoneSettings, relay_url: str, action_url: str, parameters: dict[str, str] | None = None) -> str:
    """`parameters`: `<Parameter>` children, which Twilio passes to the socket in `setup.customParameters`."""
    response = VoiceResponse()
    connect = Connect(action=action_url)
    relay = connect.conversation_relay(
        url=relay_url,
        language=settings.language,
        welcome_greeting=greeting(settings),
        interruptible="any",
        welcome_greeting_interruptible="any",
        dtmf_detection=True,
    )
    for name, value in (parameters or {}).items():
        relay.parameter(name=name, value=value)
    response.append(connect)
    return str(response)


def after_session(settings: PhoneSettings, handover: bool) -> str:
    response = VoiceResponse()
    if handover and settings.staff_number:  # the relay already said HANDOVER_WORDS
        response.dial(settings.staff_number)
    else:
        response.hangup()
    return str(response)
