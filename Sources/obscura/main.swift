import ObscuraCLI
ObscuraCommand.main()
