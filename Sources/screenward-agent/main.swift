import AgentMain

AgentCommand.main()
