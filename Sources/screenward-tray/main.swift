import TrayMain

TrayCommand.main()
