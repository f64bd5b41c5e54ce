import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// A vault directory and the export beside it, as found after a write: interrupted by a
/// crash, failed, or whole. Crash consistency holds when every image is sound and holds
/// each vault, and the export, in the state from before the write or from after it.
public struct CrashImage: Codable, Equatable, Sendable {
    /// The directory's audit.
    public var report: AuditReport
    /// What stands at the export's name.
    public var export: ExportState
    /// Export temporaries left beside it (a killed export leaves one; nothing sweeps
    /// them, since they sit outside any vault directory).
    public var partialExports: Int

    /// Audits the vault directory at `vault` and the export at `exportPath`.
    public static func audit(
        vault: String, exportPath: String, secrets: any DecoySecretSource,
        labels: [(label: String, passwords: [SecureBytes])], folderPassword: SecureBytes, exportPassword: SecureBytes,
        outerKey: SecureBytes? = nil
    ) throws -> CrashImage {
        let report = try VaultAudit.run(
            path: vault, secrets: secrets, vaults: labels, folderPasswords: [folderPassword], outerKey: outerKey)
        let export = try VaultAudit.export(at: exportPath, password: exportPassword)
        return CrashImage(report: report, export: export.state, partialExports: export.partials)
    }

    /// Whether this image holds the same vault states and export as `other`.
    public func sameState(as other: CrashImage) -> Bool {
        report.vaults == other.report.vaults && export == other.export
    }

    /// What is wrong with this image, given the images before and after the write:
    /// every audit problem, and every vault or export in neither state.
    public func violations(old: CrashImage, new: CrashImage) -> [String] {
        var wrong = report.problems
        for label in Set(old.report.vaults.keys).union(new.report.vaults.keys).sorted() {
            let state = report.vaults[label]
            if state != old.report.vaults[label] && state != new.report.vaults[label] {
                wrong.append("vault \(label) is neither old nor new: \(String(describing: state))")
            }
        }
        if export != old.export && export != new.export {
            wrong.append("export is neither old nor new: \(export)")
        }
        return wrong
    }
}
