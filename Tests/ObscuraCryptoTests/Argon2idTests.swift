import Foundation
import Testing
@testable import ObscuraCrypto

@Suite struct Argon2idTests {
    /// Known answers of the reference implementation (phc-winner-argon2's test.c for the
    /// first; both agree with argon2-cffi): P = "password", S = "somesalt".
    @Test(arguments: [
        (16, 2, 1, "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7"),
        (8, 2, 2, "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037"),
    ])
    func knownAnswers(exponent: Int, passes: Int, lanes: Int, expected: String) throws {
        let cost = try #require(Argon2idCost(memoryExponent: exponent, passes: passes, lanes: lanes))
        let key = try KDFParameters.argon2id(cost).deriveKey(
            password: SecureBytes(copying: Array("password".utf8)), salt: Array("somesalt".utf8))
        #expect(key == SecureBytes(copying: hex(expected)))
    }

    @Test func recommendedIsRFC9106SecondOption() {
        let cost = Argon2idCost.recommended
        #expect(cost.memoryKiB == 65536 && cost.passes == 3 && cost.lanes == 4)
        #expect(cost.word == 0x1003_0400)
        #expect(KDFParameters.argon2id.description == "Argon2id, 64 MiB, 3 passes, 4 lanes")
        #expect(KDFParameters.vault.description == "PBKDF2-HMAC-SHA256, 600,000 iterations")
    }

    @Test func wordsRoundTripAndBoundsAreEnforced() {
        #expect(KDFParameters(suite: 2, word: 0x1003_0400) == .argon2id(.recommended))
        #expect(KDFParameters(suite: 1, word: 600_000) == .vault)
        // Reserved byte, memory past 256 MiB, too little memory for the lanes, zero passes,
        // too many lanes, more work than four times the default's, an unknown suite,
        // PBKDF2 counts out of range.
        for (suite, word) in [(2, 0x1003_0401), (2, 0x1301_0100), (2, 0x0301_0200), (2, 0x1000_0400),
                              (2, 0x1001_1100), (2, 0x1107_0100), (3, 0x1003_0400), (1, 0), (1, 10_000_001)] as [(UInt16, UInt32)] {
            #expect(KDFParameters(suite: suite, word: word) == nil, "suite \(suite) word \(word)")
        }
        for word: UInt32 in [0x0301_0100, 0x1203_1000, 0x0A0A_0100, 0x100A_0100] {
            #expect(KDFParameters(suite: 2, word: word)?.word == word)
        }
    }

    /// Derivations started together hold no more memory at once than the budget: four
    /// threads at 128 MiB each would hold 512 MiB without the gate.
    @Test func concurrentDerivationsStayUnderTheBudget() throws {
        let cost = try #require(Argon2idCost(memoryExponent: 17, passes: 1, lanes: 1))
        let group = DispatchGroup()
        for i in 0..<4 {
            group.enter()
            Thread {
                _ = try? Argon2id.deriveKey(password: SecureBytes(copying: [UInt8(i)]), salt: [UInt8](repeating: 1, count: 32), cost: cost)
                group.leave()
            }.start()
        }
        group.wait()
        #expect(Argon2id.peakHeldKiB <= max(Argon2id.memoryBudgetKiB, cost.memoryKiB))
        #expect(Argon2id.peakHeldKiB >= cost.memoryKiB)
    }
}
