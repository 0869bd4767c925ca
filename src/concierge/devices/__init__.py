"""SwitchBot API v1.1: its request signing and status codes (`switchbot`), and a local, SwitchBot-compatible
device hub for trying the home catalog without hardware (`simulator`; `concierge devices simulate`)."""
