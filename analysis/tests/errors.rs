//! Every way a run directory can fail to load, with the exact message.

mod common;
mod fixtures;

use common::{profile_text, run_dir, tempdir, write_profile, Proc, Thread};
use regio_analysis::{load_run, AnalysisError};

fn one_thread_proc(nodes: Vec<common::N>) -> Proc {
    Proc::new(0, 1, 10, vec![Thread { thread: 0, nodes }])
}

fn load_err(dir: &std::path::Path) -> String {
    load_run(dir, None).unwrap_err().to_string()
}

#[test]
fn a_directory_without_profiles_is_an_error() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    // Neither temporary files of an interrupted write nor other JSON count.
    std::fs::write(dir.join("profile-r0-p1.json.tmp"), "{}").unwrap();
    std::fs::write(dir.join("regio.idf.json"), "{}").unwrap();
    std::fs::create_dir(dir.join("profile-dir.json")).unwrap();
    let err = load_run(&dir, None).unwrap_err();
    assert!(matches!(err, AnalysisError::NoProfiles { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: error: no profile files (profile-*.json) in run directory",
            dir.display()
        )
    );
}

#[test]
fn a_missing_directory_is_an_error_naming_it() {
    let tmp = tempdir();
    let dir = tmp.path().join("nope");
    let err = load_run(&dir, None).unwrap_err();
    assert!(matches!(err, AnalysisError::Io { .. }));
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{}: error: ", dir.display())),
        "{msg}"
    );
}

#[test]
fn bad_json_is_reported_with_file_line_and_column() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let file = dir.join("profile-r0-p1.json");
    std::fs::write(
        &file,
        "{\"format\":\"regio-profile\",\n \"version\":1,\n \"mode\": oops}\n",
    )
    .unwrap();
    assert_eq!(
        load_err(&dir),
        format!(
            "{}:3:10: error: expected value at line 3 column 10",
            file.display()
        )
    );
}

#[test]
fn a_truncated_profile_is_reported_where_it_ends() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let file = dir.join("profile-r0-p1.json");
    let full = profile_text(&one_thread_proc(vec![(0, None, 1, 1, 0, 5, 5, 5, 5, 0)]));
    std::fs::write(&file, &full[..full.len() / 2]).unwrap();
    let msg = load_err(&dir);
    assert!(msg.starts_with(&format!("{}:", file.display())), "{msg}");
    assert!(msg.contains(": error: EOF while parsing"), "{msg}");
}

#[test]
fn another_version_or_format_is_refused_by_name() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let file = dir.join("profile-r0-p1.json");
    let good = profile_text(&one_thread_proc(vec![]));
    std::fs::write(&file, good.replace("\"version\":1", "\"version\":9")).unwrap();
    assert_eq!(
        load_err(&dir),
        format!(
            "{}: error: not a profile this build reads (format `regio-profile`, version 9; expected `regio-profile` 1 to 2)",
            file.display()
        )
    );
    // A future version whose fields changed is still named by its version,
    // not by the first field this build does not know.
    std::fs::write(
        &file,
        "{\"format\":\"regio-profile\",\"version\":3,\"ranks\":[]}",
    )
    .unwrap();
    assert!(
        load_err(&dir).contains("version 3; expected"),
        "{}",
        load_err(&dir)
    );
    std::fs::write(
        &file,
        good.replace("\"regio-profile\"", "\"other-profile\""),
    )
    .unwrap();
    assert!(
        load_err(&dir).contains("(format `other-profile`, version 1;"),
        "{}",
        load_err(&dir)
    );
}

#[test]
fn a_parent_that_does_not_precede_its_child_is_refused() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    write_profile(
        &dir,
        &one_thread_proc(vec![
            (0, Some(1), 1, 1, 0, 5, 5, 5, 5, 0),
            (1, None, 2, 1, 0, 5, 5, 5, 5, 0),
        ]),
    );
    assert_eq!(
        load_err(&dir),
        format!(
            "{}: error: thread 0: node 0 has parent 1, which does not precede it",
            dir.join("profile-r0-p1.json").display()
        )
    );
}

#[test]
fn node_ids_must_be_their_positions_and_threads_unique() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    write_profile(
        &dir,
        &one_thread_proc(vec![(4, None, 1, 1, 0, 5, 5, 5, 5, 0)]),
    );
    assert!(
        load_err(&dir).ends_with("error: thread 0: node at position 0 has id 4"),
        "{}",
        load_err(&dir)
    );

    let twice = Proc::new(
        0,
        1,
        10,
        vec![
            Thread {
                thread: 3,
                nodes: vec![],
            },
            Thread {
                thread: 3,
                nodes: vec![],
            },
        ],
    );
    write_profile(&dir, &twice);
    assert!(
        load_err(&dir).ends_with("error: thread 3 appears more than once"),
        "{}",
        load_err(&dir)
    );
}

#[test]
fn a_broken_idf_in_the_run_directory_is_an_error() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    write_profile(
        &dir,
        &one_thread_proc(vec![(0, None, 1, 1, 0, 5, 5, 5, 5, 0)]),
    );
    let idf = dir.join("regio.idf.json");
    std::fs::write(&idf, "{\n  \"header\": ]").unwrap();
    let msg = load_err(&dir);
    assert!(
        msg.starts_with(&format!("{}:2:13: error: ", idf.display())),
        "{msg}"
    );

    // Valid JSON, invalid IDF: the validation errors are listed.
    common::write_idf(&idf, &[(1, "function", "f", "a.c", 1, 5, Some(9))]);
    assert_eq!(
        load_err(&dir),
        format!(
            "{}: error: invalid IDF: region 1: parent 9 does not exist",
            idf.display()
        )
    );
}

#[test]
fn an_idf_override_that_cannot_be_read_is_an_error() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let missing = tmp.path().join("missing.idf.json");
    let msg = load_run(&dir, Some(&missing)).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}: ", missing.display())),
        "{msg}"
    );
    assert!(msg.contains("No such file"), "{msg}");
}
