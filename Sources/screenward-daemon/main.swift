import DaemonMain

DaemonCommand.main()
