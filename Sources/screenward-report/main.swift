import ReportMain

ReportCommand.main()
