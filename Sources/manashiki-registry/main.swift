print("manashiki-registry: not built yet")
