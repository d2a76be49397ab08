/// Namespace of the sync agent.
public enum ManashikiSyncModule {}
