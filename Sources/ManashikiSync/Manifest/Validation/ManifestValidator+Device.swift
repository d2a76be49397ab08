import Foundation
import Manashiki
import ManashikiCore

/// `device`: the profile compatibility is checked against.
extension ManifestValidator {
    mutating func deviceProfile(_ o: [String: JSONValue]) -> DeviceProfile? {
        let platform = platformValue(o["platform"], at: "device.platform")
        if o["platform"] == nil {
            problems.append(ManifestProblem(path: "device.platform", message: "is missing", hint: "name the device's platform, one of \(Platform.known.map(\.rawValue).joined(separator: ", "))"))
        }
        var os: String?
        if let text = string(o, "osVersion", at: "device") {
            if ModelVersion(text) == nil {
                problems.append(ManifestProblem(path: "device.osVersion", message: "\"\(text)\" is not a dotted version", hint: #"write it like "17.2""#))
            } else { os = text }
        }
        let memory = int(o, "memoryMB", at: "device", range: 1...Int(Int32.max))
        let disk = int(o, "diskMB", at: "device", range: 0...Int(Int32.max))
        return platform.map { DeviceProfile(platform: $0, osVersion: os, memoryMB: memory, diskMB: disk) }
    }
}
