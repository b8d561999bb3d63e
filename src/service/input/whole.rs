//! Every problem of a body in one answer: its shape, the operation's own checks, and the ids it
//! names that the organization does not have.

use crate::{
    error::Result,
    model::validate::Violations,
    service::{
        Ctx,
        input::decode::{Checked, Input, problems},
    },
    store::Reader,
};

/// The body of `input` when nothing is wrong with it. Otherwise every problem at once: the
/// shape's, `check`'s, and, read from the database, `references`' (the same function the
/// operation runs again inside its transaction, where the answer counts).
pub async fn checked<T, C, R>(ctx: &Ctx, input: Input<T>, check: C, references: R) -> Result<T>
where
    T: Send + 'static,
    C: FnOnce(&T, &mut Violations),
    R: FnOnce(&Reader, &T, &mut Violations) -> Result<()> + Send + 'static,
{
    match input.checked(check) {
        Checked::Valid(body) => Ok(body),
        Checked::Unreadable(err) => Err(err),
        Checked::Invalid(errors, None) => Err(problems(errors)),
        Checked::Invalid(mut errors, Some(body)) => {
            let found = ctx
                .db
                .read(move |db| {
                    let mut found = Violations::new();
                    references(db, &body, &mut found)?;
                    Ok(found)
                })
                .await?;
            errors.merge(found);
            Err(problems(errors))
        }
    }
}

/// `checked` inside a unit of work that already holds a connection (`db`): the references are
/// checked in every case, and the body comes back only when nothing is wrong with it.
pub fn checked_in<T, C, R>(db: &Reader, input: Input<T>, check: C, references: R) -> Result<T>
where
    C: FnOnce(&T, &mut Violations),
    R: FnOnce(&Reader, &T, &mut Violations) -> Result<()>,
{
    match input.checked(check) {
        Checked::Valid(body) => {
            let mut found = Violations::new();
            references(db, &body, &mut found)?;
            found.finish()?;
            Ok(body)
        }
        Checked::Unreadable(err) => Err(err),
        Checked::Invalid(errors, None) => Err(problems(errors)),
        Checked::Invalid(mut errors, Some(body)) => {
            let mut found = Violations::new();
            references(db, &body, &mut found)?;
            errors.merge(found);
            Err(problems(errors))
        }
    }
}
