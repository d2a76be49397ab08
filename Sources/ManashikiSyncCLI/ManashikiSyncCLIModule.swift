/// Namespace of the sync command.
public enum ManashikiSyncCLIModule {}
