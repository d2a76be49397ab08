import Foundation
import Manashiki
import ManashikiSync

/// Turns failures and blocked plan items into one line: what happened, then what to do,
/// phrased for someone running the command (not for an app calling the SDK).
package enum ErrorAdvice {
    /// What happened and what to do about a failed action. `rerun` is the command to run
    /// again when it is not a sync (whose next scheduled run retries by itself).
    package static func text(for failure: SyncFailure, rerun: String? = nil) -> (what: String, todo: String) {
        if let api = failure.apiError {
            switch api {
            case .sessionRequired:
                return ("the model is private and the registry asked for a session token",
                        "add a session source to this model's manifest entry, e.g. \"session\": {\"env\": \"MANASHIKI_SESSION\"}, and provide the token")
            case .invalidSession:
                return ("the session token is expired or malformed", "provide a fresh session token through the model's session source")
            case .unauthorized:
                return ("the registry rejected the API key (revoked or unknown)",
                        "create a new key in the dashboard and update MANASHIKI_API_KEY or the --api-key-file file")
            case .forbiddenScope:
                return ("the API key's tier may not do this", "minting sessions needs a legacy sk_live_ key; use another session source (env, file or command)")
            case .modelNotFound:
                return ("the registry has no such model visible to this key's organisation",
                        "check the id in the manifest and that the key belongs to the model's organisation")
            case .modelSunset:
                return ("the model has been sunset", "remove it from the manifest or move to its successor")
            case .untrustedCertificate(let host, let reason):
                return ("the certificate of \(host) is not trusted: \(reason)",
                        "if \(host) uses a private or corporate CA, add its CA with `registry.caBundle` in the manifest, `--ca-bundle FILE`, or SSL_CERT_FILE")
            case .certificateNameMismatch(let host, let validFor):
                return ("the certificate of \(host) is valid for \(validFor.isEmpty ? "other names" : validFor), not \(host)",
                        "check the host name in registry.baseURL or the mirror's URL, or ask the operator of \(host) for a certificate that names it")
            default:
                break
            }
        }
        // Say "usually temporary" once: the SDK's text may already say it.
        let temporary = failure.apiError?.saysUsuallyTemporary == true ? "" : "this is usually temporary: "
        let again = rerun.map { "run `\($0)` again when the registry is reachable" } ?? "the next run retries (or run `manashiki-sync sync` again)"
        let todo = failure.isRetryable
            ? "\(temporary)\(again)"
            : "fix the cause above, then run `\(rerun ?? "manashiki-sync sync")` again"
        return (failure.description, todo)
    }

    /// What is wrong with a blocked plan item and what to do; nil when it is not blocked. A
    /// model the run cannot deliver is described by the plan's reason (which names the versions).
    package static func text(forBlocked item: PlanItem) -> (what: String, todo: String)? {
        guard case .blocked(let cause) = item.action else { return nil }
        let advice = text(for: cause)
        switch cause {
        case .notInCatalog, .invalidCatalogEntry, .pinUnsatisfiable, .rollbackRefused, .lifecycle, .sunset, .incompatible:
            return ("not installed: \(item.reason)", advice.todo)
        default:
            return advice
        }
    }

    /// What is blocked and what to do.
    package static func text(for cause: BlockCause) -> (what: String, todo: String) {
        switch cause {
        case .sessionUnavailable(let why):
            return ("private model without a session token: \(why)",
                    "provide the token the manifest's session source names (or add a session source to this entry)")
        case .recordUnavailable(let why):
            return ("the registry record could not be fetched: \(why)", "check the registry and run again")
        case .pruneLimit(let count, let max):
            return ("\(count) files would be pruned but at most \(max) may be deleted in one run",
                    "check the manifest lists every model you want; if the prunes are intended, pass --max-delete \(count) or raise store.prune.maxDeletes")
        case .unavailable(let why, let instruction):
            // A reason that carries its own instruction (a locked artifact, "fallback": "none")
            // says it once, not followed by the generic one, which is about offline runs.
            return (why, instruction?.text(.commandLine) ?? "add a bundle that holds it (`manashiki-sync export` on a synced machine, then \"sources\" or --from), or run online")
        case .emptyManifest:
            return ("the manifest lists no models, so pruning would empty the store",
                    "add models to the manifest, or set store.prune.allowEmptyManifest to true if emptying is intended")
        case .notInCatalog:
            return ("not installed: the registry's catalog does not list this model",
                    "check the id in the manifest and that the API key belongs to the model's organisation; mark the entry \"optional\": true if it may be absent")
        case .invalidCatalogEntry(let problem):
            return ("not installed: the registry's catalog entry for this model is invalid (\(problem))",
                    "report it to the registry's operator; the other models were synced")
        case .pinUnsatisfiable:
            return ("not installed: the registry does not serve a version satisfying the manifest's version or sha256 pin",
                    "change the entry's \"version\" or \"sha256\" to what the registry serves (`manashiki-sync plan -v` shows it), or wait until it is published")
        case .rollbackRefused(let installed, let catalog):
            return ("not installed: the registry serves \(catalog), older than the installed \(installed), which does not satisfy the manifest",
                    "pin \"version\": \"\(catalog)\" exactly to roll back, or change the requirement")
        case .lifecycle(let status):
            return ("not installed: the model is \(status), which policies.lifecycle does not accept",
                    "add \"\(status)\" to policies.lifecycle if that is intended, or wait for a production release")
        case .sunset:
            return ("not installed: the model is sunset and can no longer be downloaded",
                    "remove it from the manifest or move to its successor")
        case .incompatible(let problems) where problems.allSatisfy(\.isFreeDiskShortfall):
            return ("not installed: incompatible with this device (\(problems.map(\.description).joined(separator: "; ")))",
                    "free space on the store's volume (the model's min_disk_mb is what it needs to run, beyond its size) or point store.directory at a larger volume, then sync again")
        case .incompatible(let problems):
            return ("not installed: incompatible with this device (\(problems.map(\.description).joined(separator: "; ")))",
                    "remove the entry, restrict it with \"platforms\", or set policies.checkCompatibility to false if the device profile is wrong")
        }
    }

    /// `model: what; to fix: todo` (or without the model when nil).
    package static func line(modelId: String?, what: String, todo: String) -> String {
        let head = modelId.map { "\($0): " } ?? ""
        return "\(head)\(what) — \(todo)"
    }
}
