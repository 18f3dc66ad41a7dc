// The MySQL/MariaDB lexer is pure and lives in the engine (outside-calls.ts reads SQL through it
// too); the dialect's statement splitting and ALTER TABLE fallback keep importing it from here.
export { type Lexeme, lexMysql } from '../../engine/mysql-sql-lexer.ts';
