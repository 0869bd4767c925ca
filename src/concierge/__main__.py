from concierge.cli import main

main()
