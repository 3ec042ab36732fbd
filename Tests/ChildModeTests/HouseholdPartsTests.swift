import XCTest

@testable import Household

/// The household's parts that need no database: join codes as people type them, and the
/// schema's migrations split into statements.
final class HouseholdPartsTests: XCTestCase {
    func testAJoinCodeIsReadAsPeopleTypeIt() throws {
        let code = JoinCode.make()
        XCTAssertEqual(code.description.count, 35)
        XCTAssertEqual(try JoinCode(parsing: code.description), code)
        XCTAssertEqual(
            try JoinCode(parsing: code.description.uppercased().replacingOccurrences(of: "-", with: " ")), code)
        let typed = try JoinCode(parsing: "oOiIl-00000-00000-00000-00000-00000")
        XCTAssertEqual(typed.roleSuffix, "0011100000", "o is 0; i and l are 1")
        XCTAssertEqual(typed.role, "screenward_join_0011100000")
        XCTAssertThrowsError(try JoinCode(parsing: "abcde")) {
            XCTAssertTrue("\($0)".contains("has 30 letters and digits"), "\($0)")
        }
        XCTAssertThrowsError(try JoinCode(parsing: "uuuuu-00000-00000-00000-00000-00000")) {
            XCTAssertTrue("\($0)".contains("\"u\" is not one"), "\($0)")
        }
        XCTAssertNotEqual(JoinCode.make(), JoinCode.make())
    }

    func testAMigrationSplitsAtStatementsNotInsideFunctionBodies() {
        let migration = HouseholdSchema.Migration(
            name: "test",
            sql: """
                -- a comment; with a semicolon;
                CREATE TABLE a (x int);
                CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$
                BEGIN
                  PERFORM 1;
                END $$;
                GRANT SELECT ON a
                  TO b;
                """)
        XCTAssertEqual(migration.statements.count, 3)
        XCTAssertTrue(
            migration.statements[1].hasPrefix("CREATE FUNCTION") && migration.statements[1].hasSuffix("END $$;"))
        XCTAssertEqual(migration.statements[2], "GRANT SELECT ON a\n  TO b;")
        for shipped in HouseholdSchema.migrations {
            XCTAssertTrue(shipped.statements.allSatisfy { $0.hasSuffix(";") }, shipped.name)
        }
    }
}
