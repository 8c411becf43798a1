//! A forced `tool_choice` that holds (see
//! [`ToolCallingModel::enforce_tool_choice`]): an answer without the call
//! is asked for again with a corrective message, a bounded number of
//! times, and then is an error.

use std::fmt;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};

use super::choice::ToolChoice;
use super::model::{Content, GenerateResult, LanguageModel, ModelError, StreamPart};
use super::params::{Message, Part, Request};
use super::ToolCallingModel;
use crate::event::Event;
use crate::Error;

/// A forced `tool_choice` the model did not meet, after every retry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolChoiceUnmet {
    /// The tool the request named, or `None` for `required`.
    pub tool: Option<String>,
    /// How many answers the model gave, none of them the call.
    pub attempts: u32,
}

impl fmt::Display for ToolChoiceUnmet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.tool {
            Some(name) => format!("a call to `{name}`"),
            None => "a tool call".to_owned(),
        };
        write!(
            f,
            "tool_choice asked for {what}, and the model answered without one {} time{}",
            self.attempts,
            if self.attempts == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for ToolChoiceUnmet {}

impl<M: LanguageModel + 'static> ToolCallingModel<M> {
    /// Generates a whole answer.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRequest`] before the model is called. The model's own
    /// error comes out of the future, and [`ToolChoiceUnmet`] when
    /// [`enforce_tool_choice`](ToolCallingModel::enforce_tool_choice) is on
    /// and no answer made the call.
    pub fn generate(
        &self,
        request: &Request,
    ) -> Result<BoxFuture<'static, Result<GenerateResult, ModelError>>, Error> {
        let first = self.generate_once(request)?;
        match (self.forced_retries, forced_choice(request)) {
            (Some(retries), Some(choice)) => Ok(generate(
                self.clone(),
                request.clone(),
                choice,
                retries,
                first,
            )),
            _ => Ok(first),
        }
    }

    /// Streams an answer: text deltas, tool input as it arrives, tool calls,
    /// diagnostics, then the finish reason.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRequest`] before the model is called. Model errors
    /// come as items of the stream, and [`ToolChoiceUnmet`] as its last
    /// when [`enforce_tool_choice`](ToolCallingModel::enforce_tool_choice)
    /// is on and no answer made the call.
    pub fn stream(
        &self,
        request: &Request,
    ) -> Result<BoxStream<'static, Result<StreamPart, ModelError>>, Error> {
        let first = self.stream_once(request)?;
        match (self.forced_retries, forced_choice(request)) {
            (Some(retries), Some(choice)) => Ok(stream(
                self.clone(),
                request.clone(),
                choice,
                retries,
                first,
            )),
            _ => Ok(first),
        }
    }
}

/// The forced choice of `request`, if it has one.
pub(super) fn forced_choice(request: &Request) -> Option<ToolChoice> {
    match &request.tool_choice {
        Some(choice @ (ToolChoice::Required | ToolChoice::Tool { .. })) => Some(choice.clone()),
        _ => None,
    }
}

/// What the model is told after an answer without the call: the JSON
/// object that forced answers are read as (and that `response_format`
/// asks the backend for).
fn corrective(choice: &ToolChoice) -> String {
    match choice {
        ToolChoice::Tool { name } => format!(
            "That answer did not call the tool `{name}`, and the call is required. Answer again with only the call, as a JSON object: {{\"name\": \"{name}\", \"arguments\": {{...}}}}"
        ),
        _ => "That answer called no tool, and a tool call is required. Answer again with only a call to one of the tools, as a JSON object: {\"name\": \"...\", \"arguments\": {...}}".to_owned(),
    }
}

/// `request` once more, after the model's `answer` without the call.
fn retry_request(request: &Request, answer: &str, choice: &ToolChoice) -> Request {
    let mut retry = request.clone();
    if !answer.trim().is_empty() {
        retry.messages.push(Message::Assistant {
            content: vec![Part::text(answer)],
        });
    }
    retry.messages.push(Message::user(corrective(choice)));
    retry
}

fn unmet(choice: &ToolChoice, attempts: u32) -> ModelError {
    let tool = match choice {
        ToolChoice::Tool { name } => Some(name.clone()),
        _ => None,
    };
    Box::new(ToolChoiceUnmet { tool, attempts })
}

/// [`ToolCallingModel::generate`] with the choice held: `first` is the
/// first answer's future.
pub(super) fn generate<M: LanguageModel + 'static>(
    model: ToolCallingModel<M>,
    request: Request,
    choice: ToolChoice,
    retries: u32,
    first: BoxFuture<'static, Result<GenerateResult, ModelError>>,
) -> BoxFuture<'static, Result<GenerateResult, ModelError>> {
    Box::pin(async move {
        let mut answer = first.await?;
        let mut asked = request;
        for attempt in 1..=retries + 1 {
            let called = answer
                .content
                .iter()
                .any(|c| matches!(c, Content::ToolCall { .. }));
            if called {
                return Ok(answer);
            }
            if attempt > retries {
                break;
            }
            let text: String = answer
                .content
                .iter()
                .filter_map(|c| match c {
                    Content::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            tracing::debug!(target: "toolsieve::parse", attempt, "forced tool_choice not met; asking again");
            asked = retry_request(&asked, &text, &choice);
            answer = model.generate_once(&asked)?.await?;
        }
        Err(unmet(&choice, retries + 1))
    })
}

/// Where a held stream stands.
struct Held<M> {
    model: ToolCallingModel<M>,
    request: Request,
    choice: ToolChoice,
    retries_left: u32,
    attempts: u32,
    current: BoxStream<'static, Result<StreamPart, ModelError>>,
    /// The parts of this answer, held until a call begins.
    held: Vec<StreamPart>,
    /// Its text, for the retry.
    text: String,
    called: bool,
    done: bool,
}

/// [`ToolCallingModel::stream`] with the choice held: `first` is the first
/// answer's stream.
pub(super) fn stream<M: LanguageModel + 'static>(
    model: ToolCallingModel<M>,
    request: Request,
    choice: ToolChoice,
    retries: u32,
    first: BoxStream<'static, Result<StreamPart, ModelError>>,
) -> BoxStream<'static, Result<StreamPart, ModelError>> {
    let state = Held {
        model,
        request,
        choice,
        retries_left: retries,
        attempts: 1,
        current: first,
        held: Vec::new(),
        text: String::new(),
        called: false,
        done: false,
    };
    stream::unfold(state, |mut state| async move {
        let out = state.next_parts().await?;
        Some((out, state))
    })
    .flat_map(stream::iter)
    .boxed()
}

impl<M: LanguageModel + 'static> Held<M> {
    /// The next parts to send (`None`: the stream is over).
    async fn next_parts(&mut self) -> Option<Vec<Result<StreamPart, ModelError>>> {
        loop {
            if self.done {
                return None;
            }
            let Some(item) = self.current.next().await else {
                self.done = true;
                return None;
            };
            let part = match item {
                Ok(part) => part,
                Err(e) => {
                    self.done = true;
                    return Some(vec![Err(e)]);
                }
            };
            if self.called {
                return Some(vec![Ok(part)]);
            }
            match part {
                StreamPart::Event(Event::ToolInputStart { .. } | Event::ToolCall { .. }) => {
                    self.called = true;
                    let mut out: Vec<_> = self.held.drain(..).map(Ok).collect();
                    out.push(Ok(part));
                    return Some(out);
                }
                // The rewrite's warnings, once.
                StreamPart::Warning(_) if self.attempts > 1 => {}
                StreamPart::Warning(_) => return Some(vec![Ok(part)]),
                StreamPart::Finish(_) => return Some(self.no_call()),
                StreamPart::Event(Event::TextDelta { ref delta, .. }) => {
                    self.text.push_str(delta);
                    self.held.push(part);
                }
                other => self.held.push(other),
            }
        }
    }

    /// The answer ended without the call: asks again, or fails.
    fn no_call(&mut self) -> Vec<Result<StreamPart, ModelError>> {
        if self.retries_left == 0 {
            self.done = true;
            return vec![Err(unmet(&self.choice, self.attempts))];
        }
        self.retries_left -= 1;
        self.attempts += 1;
        tracing::debug!(target: "toolsieve::parse", attempt = self.attempts, "forced tool_choice not met; asking again");
        self.request = retry_request(&self.request, &self.text, &self.choice);
        self.held.clear();
        self.text.clear();
        match self.model.stream_once(&self.request) {
            Ok(next) => {
                self.current = next;
                Vec::new()
            }
            Err(e) => {
                self.done = true;
                vec![Err(Box::new(e))]
            }
        }
    }
}
