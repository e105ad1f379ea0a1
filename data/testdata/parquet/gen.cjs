// gen.cjs writes the Parquet test files of package data with DuckDB, an
// independent Parquet writer (C++), from data/australian.dat. The tests need
// only Go and the committed .parquet files; this script is run by hand when the
// files must change:
//
//	cd /tmp/duck && npm install @duckdb/node-api@1.5.6-r.1
//	NODE_PATH=/tmp/duck/node_modules node data/testdata/parquet/gen.cjs
//
// (run from the repository root). australian.parquet holds the 690 rows, with
// the columns in numeric types of every
// kind a reader must convert: BOOLEAN, DECIMAL stored in INT32 and INT64,
// signed and unsigned 8/16/32/64-bit integers, FLOAT and DOUBLE, and the
// class last. groups.parquet has 5000 rows in 3 row groups (DuckDB writes row
// groups of at least 2048 rows), with values the test recomputes exactly:
// i BIGINT = 0…4999, x DOUBLE = (7919 i mod 1000)/8 (few distinct values, so
// dictionary-encoded), z FLOAT = i/4 − 600, y INTEGER = 1 if 31 i mod 7 < 3.
// bad.parquet has a NULL feature (row 3) and a text column.
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`CREATE TABLE a AS SELECT * FROM read_csv('data/australian.dat', delim=' ', header=false,
  columns={'c1':'DOUBLE','c2':'DOUBLE','c3':'DOUBLE','c4':'DOUBLE','c5':'DOUBLE','c6':'DOUBLE','c7':'DOUBLE',
           'c8':'DOUBLE','c9':'DOUBLE','c10':'DOUBLE','c11':'DOUBLE','c12':'DOUBLE','c13':'DOUBLE','c14':'DOUBLE','c15':'DOUBLE'})`);
await con.run(`COPY (SELECT
    c1::BOOLEAN AS A1, c2::DECIMAL(5,2) AS A2, c3 AS A3, c4::UTINYINT AS A4, c5::TINYINT AS A5,
    c6::SMALLINT AS A6, c7::DECIMAL(12,5) AS A7, c8::BOOLEAN AS A8, c9::USMALLINT AS A9, c10::INTEGER AS A10,
    c11::UINTEGER AS A11, c12::UBIGINT AS A12, c13::FLOAT AS A13, c14::BIGINT AS A14, c15::TINYINT AS class
  FROM a) TO 'data/testdata/parquet/australian.parquet' (FORMAT parquet, COMPRESSION zstd)`);
await con.run(`COPY (SELECT i::BIGINT AS i, ((7919 * i) % 1000) / 8.0 AS x, (i / 4.0 - 600)::FLOAT AS z,
    CASE WHEN (31 * i) % 7 < 3 THEN 1 ELSE 0 END::INTEGER AS y FROM range(5000) r(i))
  TO 'data/testdata/parquet/groups.parquet' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
await con.run(`COPY (SELECT * FROM (VALUES (1.5, 'a', 1), (2.5, 'b', 0), (NULL, 'c', 1), (4.0, 'd', 0)) t(x, s, y))
  TO 'data/testdata/parquet/bad.parquet' (FORMAT parquet)`);
const r = await con.runAndReadAll(`SELECT row_group_id, count(*) AS cols, max(row_group_num_rows) AS rows
  FROM parquet_metadata('data/testdata/parquet/groups.parquet') GROUP BY row_group_id ORDER BY row_group_id`);
console.log(JSON.stringify(r.getRowObjectsJson()));
}

main().catch((e) => { console.error(e); process.exit(1); });
