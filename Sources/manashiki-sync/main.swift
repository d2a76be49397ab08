import ManashikiSyncCLI
print("manashiki-sync: not built yet")
