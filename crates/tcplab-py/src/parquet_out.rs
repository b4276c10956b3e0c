//! Result tables as Parquet bytes, written here so that a run's files need no data-frame
//! library in the Python process (issue 31 §5: `tcplab run` without polars).
//!
//! Same settings as the Python writer had (`tcplab.fileio.PARQUET_OPTIONS`): zstd level 3,
//! column statistics, one row group. Types: f64 → DOUBLE; u64 → INT64 and u32 → INT32
//! with the unsigned INTEGER logical type (polars reads them as UInt64 / UInt32); names
//! and labels → BYTE_ARRAY with the STRING logical type (dictionary-encoded). Columns are
//! REQUIRED, except in the merged events table, where a column only one kind of event has
//! is OPTIONAL (null in the other kind's rows). `created_by` is fixed, so the bytes depend
//! on the values only: identical for any thread count.

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

/// One column's values; `None` entries (events only) are nulls.
pub enum Values<'a> {
    F64(Vec<Option<f64>>),
    U64(Vec<Option<u64>>),
    U32(Vec<Option<u32>>),
    /// Borrowed from the run (flow and link names, fixed labels): no copy per row.
    Str(Vec<Option<&'a str>>),
}

pub struct Col<'a> {
    pub name: String,
    pub values: Values<'a>,
    /// REQUIRED (no nulls may appear) or OPTIONAL.
    pub nullable: bool,
}

fn levels<T: Copy>(v: &[Option<T>], nullable: bool) -> (Vec<T>, Option<Vec<i16>>) {
    let vals = v.iter().filter_map(|x| *x).collect();
    let defs = nullable.then(|| v.iter().map(|x| x.is_some() as i16).collect());
    (vals, defs)
}

fn unsigned(bit_width: i8) -> LogicalType {
    LogicalType::Integer {
        bit_width,
        is_signed: false,
    }
}

/// The Parquet file of `cols` (all of one length).
pub fn table_bytes(cols: &[Col]) -> Result<Vec<u8>, String> {
    let e = |x: parquet::errors::ParquetError| x.to_string();
    let fields = cols
        .iter()
        .map(|c| {
            let (phys, logical) = match c.values {
                Values::F64(_) => (Physical::DOUBLE, None),
                Values::U64(_) => (Physical::INT64, Some(unsigned(64))),
                Values::U32(_) => (Physical::INT32, Some(unsigned(32))),
                Values::Str(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            };
            Type::primitive_type_builder(&c.name, phys)
                .with_repetition(if c.nullable {
                    Repetition::OPTIONAL
                } else {
                    Repetition::REQUIRED
                })
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
                .map_err(e)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .map_err(e)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).map_err(e)?))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_created_by("tcplab".to_string())
        .build();
    let mut buf = Vec::new();
    let mut w =
        SerializedFileWriter::new(&mut buf, Arc::new(schema), Arc::new(props)).map_err(e)?;
    let mut rg = w.next_row_group().map_err(e)?;
    for c in cols {
        let mut cw = rg
            .next_column()
            .map_err(e)?
            .ok_or("parquet: fewer columns than in the schema")?;
        match &c.values {
            Values::F64(v) => {
                let (vals, defs) = levels(v, c.nullable);
                cw.typed::<DoubleType>()
                    .write_batch(&vals, defs.as_deref(), None)
                    .map_err(e)?;
            }
            Values::U64(v) => {
                let (vals, defs) = levels(v, c.nullable);
                let vals: Vec<i64> = vals.into_iter().map(|x| x as i64).collect();
                cw.typed::<Int64Type>()
                    .write_batch(&vals, defs.as_deref(), None)
                    .map_err(e)?;
            }
            Values::U32(v) => {
                let (vals, defs) = levels(v, c.nullable);
                let vals: Vec<i32> = vals.into_iter().map(|x| x as i32).collect();
                cw.typed::<Int32Type>()
                    .write_batch(&vals, defs.as_deref(), None)
                    .map_err(e)?;
            }
            Values::Str(v) => {
                let vals: Vec<ByteArray> =
                    v.iter().flatten().map(|&s| ByteArray::from(s)).collect();
                let defs: Option<Vec<i16>> = c
                    .nullable
                    .then(|| v.iter().map(|x| x.is_some() as i16).collect());
                cw.typed::<ByteArrayType>()
                    .write_batch(&vals, defs.as_deref(), None)
                    .map_err(e)?;
            }
        }
        cw.close().map_err(e)?;
    }
    rg.close().map_err(e)?;
    w.close().map_err(e)?;
    Ok(buf)
}
