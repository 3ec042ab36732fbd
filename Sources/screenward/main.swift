import CommandLineMain

ScreenwardCommand.main()
