//! Dropping the queue: for a front end that is stopping (RPC mode on
//! SIGINT/SIGTERM) and wants no queued job to start.

use super::jobs::Job;
use super::Controller;
use zut_control::JobOutcome;

impl Controller {
    /// Removes every queued job (the running one is left alone; see
    /// [`Controller::abort`]). Each ends as [`JobOutcome::Dropped`] without
    /// any event. Returns how many were dropped.
    pub fn drop_queued(&self) -> usize {
        let jobs: Vec<Job> = self.shared.lock().queue.drain(..).collect();
        let n = jobs.len();
        for job in jobs {
            let _ = job.done.send(JobOutcome::Dropped);
        }
        self.shared.idle.notify_waiters();
        n
    }
}
