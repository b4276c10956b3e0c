//! Flow schedules (`[schedules.NAME]`): how many flows of a group are active over time.

use super::known;
use crate::event::FlowId;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::{Flow, ScheduleRun};
use crate::time::{SimDuration, SimTime};

/// Validate every schedule and mark its flows; the runs the simulation keeps.
pub(super) fn schedules(
    sc: &Scenario,
    flows: &mut [Flow],
    duration: SimDuration,
) -> Result<Vec<ScheduleRun>, ScenarioError> {
    let mut out: Vec<ScheduleRun> = Vec::new();
    for (si, (name, s)) in sc.schedules.iter().enumerate() {
        let field = format!("schedules.{name}");
        if s.flows.is_empty() {
            return Err(ScenarioError::new(
                format!("{field}.flows"),
                "names no flow",
            ));
        }
        let mut ids: Vec<FlowId> = Vec::new();
        for (k, n) in s.flows.iter().enumerate() {
            let fk = format!("{field}.flows[{k}]");
            let Some(i) = sc.flows.keys().position(|x| x == n) else {
                return Err(ScenarioError::new(
                    fk,
                    format!("unknown flow '{n}' ({})", known(sc.flows.keys().cloned())),
                ));
            };
            if let Some(other) = flows[i].schedule {
                let other = &sc.schedules.keys().nth(other as usize).unwrap();
                let why = if *other == name {
                    "is listed twice".to_string()
                } else {
                    format!("is already in schedule '{other}'; a flow may be in one schedule only")
                };
                return Err(ScenarioError::new(fk, format!("flow '{n}' {why}")));
            }
            if let Some(key) = sc.flows[n].app.explicit_time() {
                return Err(ScenarioError::new(
                    format!("flows.{n}.app.{key}"),
                    format!(
                        "flow '{n}' is in schedule '{name}', which decides when it starts and stops; remove {key}"
                    ),
                ));
            }
            flows[i].schedule = Some(si as u32);
            ids.push(FlowId::from_index(i));
        }
        if s.active.is_empty() {
            return Err(ScenarioError::new(
                format!("{field}.active"),
                "needs at least one [time, count] step",
            ));
        }
        let mut steps = Vec::new();
        for (k, &(t, n)) in s.active.iter().enumerate() {
            let fk = format!("{field}.active[{k}]");
            if t.0 >= duration {
                return Err(ScenarioError::new(
                    fk,
                    format!("time {} is not before the end of the run ({duration})", t.0),
                ));
            }
            if k > 0 && t.0 <= s.active[k - 1].0 .0 {
                return Err(ScenarioError::new(
                    fk,
                    "times must increase from one step to the next",
                ));
            }
            if n as usize > ids.len() {
                return Err(ScenarioError::new(
                    fk,
                    format!("{n} active flows but the schedule lists {}", ids.len()),
                ));
            }
            steps.push((SimTime::ZERO + t.0, n));
        }
        out.push(ScheduleRun {
            name: name.clone(),
            flows: ids,
            steps,
            active: 0,
            log: vec![(SimTime::ZERO, 0)],
        });
    }
    Ok(out)
}
