import WebHostMain

WebHostCommand.main()
