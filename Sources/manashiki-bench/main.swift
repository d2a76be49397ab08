print("manashiki-bench: not built yet")
