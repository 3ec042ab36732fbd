import PickerMain

PickerCommand.main()
