"""The home demo catalog (SwitchBot) and the Home Assistant example catalog."""
