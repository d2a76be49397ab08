// The development registry (issue 3) lives here.
/// Namespace of the development registry.
public enum ManashikiRegistryModule {}
