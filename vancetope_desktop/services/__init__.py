"""What users and agents do with the library: the one service layer under the CLI, the app and agents."""
