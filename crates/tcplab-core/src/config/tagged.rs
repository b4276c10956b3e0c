//! Tables tagged by one key (`type`, `algorithm`, `model`) whose variants each own their
//! parameters: the registries of queue disciplines, congestion-control algorithms, traffic
//! sources and error models.
//!
//! [`tagged_enum!`](crate::tagged_enum) declares such an enum from one line per variant
//! (`"name" => Variant(path::VariantSpec)`); the parameter struct lives in the variant's own
//! module, next to the code that uses it, and validates itself there. Unlike serde's
//! internally tagged enums, errors keep the path to the leaf: `links.bn.queue.max_th:
//! invalid type: …`, not `links.bn.queue: …`. A bare string is accepted as a variant with
//! all its defaults (`cc = "reno"`).
//!
//! How the leaf path gets out: the variant is deserialized on its own with
//! `serde_path_to_error`; its path travels inside the error message between two
//! [`SUBPATH`] markers, and [`super::split_subpath`] joins it to the outer path.

use serde::de::{DeserializeOwned, Error};
use serde_json::{Map, Value};

/// Delimits a field path carried inside an error message.
pub(crate) const SUBPATH: char = '\u{1f}';

/// An error at `sub` (relative to the tagged table) saying `msg`.
pub(crate) fn error_at<E: Error>(sub: &str, msg: &str) -> E {
    E::custom(format!("{SUBPATH}{sub}{SUBPATH}{msg}"))
}

/// Split a tagged table into its variant name and the remaining parameters, checking that
/// the name is one of `names`.
pub fn split_tag<E: Error>(v: Value, tag: &str, names: &[&str]) -> Result<(String, Value), E> {
    let (name, rest) = match v {
        Value::String(s) => (s, Value::Object(Map::new())),
        Value::Object(mut m) => match m.remove(tag) {
            Some(Value::String(s)) => (s, Value::Object(m)),
            Some(other) => {
                return Err(error_at(
                    tag,
                    &format!("must be a name ({}), got {other}", names.join(", ")),
                ))
            }
            // Named at the leaf (`flows.f.app.type`), e.g. after `--set flows.f.app.start=1s`
            // made an `app` table of its own.
            None => {
                // A value that would be refused anyway in every variant (a BDP size out of
                // a builder) is said first, so one run names both what to change.
                if let Some((k, m)) = m.iter().find_map(|(k, v)| {
                    v.as_str()
                        .and_then(super::units::bdp_elsewhere)
                        .map(|m| (k.clone(), m))
                }) {
                    return Err(error_at(
                        &k,
                        &format!(
                            "{m}; the table also needs `{tag}` (one of: {})",
                            names.join(", ")
                        ),
                    ));
                }
                return Err(error_at(
                    tag,
                    &format!("missing (one of: {})", names.join(", ")),
                ));
            }
        },
        other => {
            return Err(E::custom(format!(
                "expected a name ({}) or a table with `{tag}`, got {other}",
                names.join(", ")
            )))
        }
    };
    if !names.contains(&name.as_str()) {
        return Err(error_at(
            tag,
            &format!("unknown {tag} '{name}' (known: {})", names.join(", ")),
        ));
    }
    Ok((name, rest))
}

/// serde's "unknown field" message, said in terms of the variant `name`.
fn unknown_field(msg: String, name: &str) -> String {
    let Some(rest) = msg.strip_prefix("unknown field `") else {
        return msg;
    };
    let Some((field, tail)) = rest.split_once('`') else {
        return msg;
    };
    if tail.contains("there are no fields") {
        format!("'{field}' is not a parameter of '{name}' (it has none)")
    } else if let Some(list) = tail.strip_prefix(", expected one of ") {
        let known: Vec<&str> = list.split(", ").map(|k| k.trim_matches('`')).collect();
        let hint = super::suggest::closest(field, &known)
            .map(|k| format!("did you mean `{k}`? "))
            .unwrap_or_default();
        format!("'{field}' is not a parameter of '{name}' ({hint}its parameters: {list})")
    } else if let Some(one) = tail.strip_prefix(", expected ") {
        format!("'{field}' is not a parameter of '{name}' (its parameter: {one})")
    } else {
        msg
    }
}

/// Deserialize the parameters of variant `name`, carrying the path of a failing field out
/// in the message.
pub fn variant<T: DeserializeOwned, E: Error>(rest: Value, name: &str) -> Result<T, E> {
    serde_path_to_error::deserialize::<_, T>(rest).map_err(|e| {
        let path = e.path().to_string();
        let msg = unknown_field(e.inner().to_string(), name);
        match (path == ".", super::split_subpath(&msg)) {
            (true, _) => E::custom(msg),
            (false, Some((sub, inner))) => error_at(&format!("{path}.{sub}"), &inner),
            (false, None) => error_at(&path, &msg),
        }
    })
}

/// The schema of one variant: its parameter struct's schema with the tag as a constant.
pub fn variant_schema<T: schemars::JsonSchema>(
    g: &mut schemars::SchemaGenerator,
    tag: &str,
    name: &str,
) -> Value {
    let mut s = T::json_schema(g).to_value();
    if let Some(o) = s.as_object_mut() {
        let props = o
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(p) = props.as_object_mut() {
            p.insert(tag.to_string(), serde_json::json!({ "const": name }));
        }
        let req = o
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(r) = req.as_array_mut() {
            r.push(Value::String(tag.to_string()));
        }
        o.insert("type".into(), Value::String("object".into()));
    }
    s
}

/// Declare a tagged registry enum (see the module docs).
///
/// ```ignore
/// tagged_enum! {
///     /// Queue discipline of a link direction.
///     pub enum QueueSpec, tag "type" {
///         "droptail" => Droptail(crate::queue::droptail::DropTailSpec),
///         "red" => Red(crate::queue::red::RedSpec),
///     }
/// }
/// ```
#[macro_export]
macro_rules! tagged_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident, tag $tag:literal {
            $( $(#[$vmeta:meta])* $lit:literal => $variant:ident($ty:ty) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis enum $name { $( $(#[$vmeta])* $variant($ty) ),+ }

        impl $name {
            /// The variant names, as written in scenarios.
            pub const NAMES: &'static [&'static str] = &[$($lit),+];
            /// The name of this variant, as written in scenarios.
            pub fn kind(&self) -> &'static str {
                match self { $( $name::$variant(_) => $lit ),+ }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
                let (name, rest) =
                    $crate::config::tagged::split_tag::<D::Error>(v, $tag, Self::NAMES)?;
                match name.as_str() {
                    $( $lit => $crate::config::tagged::variant::<$ty, D::Error>(rest, $lit)
                        .map($name::$variant), )+
                    _ => unreachable!("split_tag checked the name"),
                }
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let mut any = vec![serde_json::json!({
                    "type": "string",
                    "enum": Self::NAMES,
                    "description": "a name alone: that variant with its defaults",
                })];
                $( any.push($crate::config::tagged::variant_schema::<$ty>(g, $tag, $lit)); )+
                schemars::Schema::try_from(serde_json::json!({ "anyOf": any }))
                    .expect("an object schema")
            }
        }
    };
}
