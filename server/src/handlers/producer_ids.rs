//! Producer ids: InitProducerId for idempotent producers (KIP-98), without transactions.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::init_producer_id_request::InitProducerIdRequest;
use kwire_protocol::generated::init_producer_id_response::InitProducerIdResponse;
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::{producer_id_given, Refusal};
use crate::services::state::State;

/// Kafka's default `transaction.max.timeout.ms` (15 minutes, in ms): the largest
/// TransactionTimeoutMs a transactional request may carry.
pub const TRANSACTION_MAX_TIMEOUT_MS: i32 = 900_000;

/// InitProducerId v0-5 (v6, KIP-939's two-phase commit, is unstable in Kafka 4.4 and not
/// advertised), as Kafka's `KafkaApis.handleInitProducerIdRequest` and
/// `TransactionCoordinator.handleInitProducerId` answer it:
///
/// * ProducerId and ProducerEpoch (v3+) must both be -1 or both be set: else INVALID_REQUEST;
/// * a null TransactionalId (an idempotent producer) always gets a new producer id with epoch 0,
///   whatever ProducerId and ProducerEpoch it sends (Kafka's coordinator "blindly accepts" it:
///   an idempotent producer bumps its epoch itself, KIP-360, and asks for a new id only when the
///   epoch would overflow or its state is lost);
/// * an empty TransactionalId: INVALID_REQUEST; a TransactionTimeoutMs outside 1..=900000:
///   INVALID_TRANSACTION_TIMEOUT;
/// * any other TransactionalId: COORDINATOR_NOT_AVAILABLE (15). kwire-server has no transaction
///   coordinator; FindCoordinator names this server for transaction keys (as for groups), and
///   COORDINATOR_NOT_AVAILABLE is what a Kafka transaction coordinator answers when it cannot
///   write its `__transaction_state` log: a retriable error, so a transactional producer retries
///   until its `max.block.ms` and then fails with a timeout, never with an authorization error.
///
/// With a data directory a new block of ids may have to be written first; if that fails the
/// answer is COORDINATOR_LOAD_IN_PROGRESS, Kafka's answer when its producer id manager has no
/// block of ids yet (retriable).
///
/// Error answers carry producer id -1 and epoch -1, as Kafka's.
pub fn init_producer_id(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &InitProducerIdRequest,
) -> InitProducerIdResponse {
    let refused = match check(r) {
        Err(refusal) => refusal,
        Ok(()) => match st.new_producer_id() {
            Ok(id) => {
                st.fx.event(producer_id_given(ctx, id, 0));
                return InitProducerIdResponse {
                    throttle_time_ms: 0,
                    error_code: ErrorCode::None.code(),
                    producer_id: id,
                    producer_epoch: 0,
                    ..Default::default()
                };
            }
            Err(e) => (
                ErrorCode::CoordinatorLoadInProgress,
                format!("cannot write the durable log: {e}"),
            ),
        },
    };
    let (code, message) = refused;
    st.fx.refused(
        ctx,
        ApiKey::InitProducerId,
        Refusal {
            code: code.code(),
            message: Some(&message),
        },
    );
    InitProducerIdResponse {
        throttle_time_ms: 0,
        error_code: code.code(),
        producer_id: -1,
        producer_epoch: -1,
        ..Default::default()
    }
}

/// The checks of [`init_producer_id`] before an id is given: `Ok` for an idempotent producer's
/// request, else the error code and message.
fn check(r: &InitProducerIdRequest) -> Result<(), (ErrorCode, String)> {
    if (r.producer_id == -1) != (r.producer_epoch == -1) {
        return Err((
            ErrorCode::InvalidRequest,
            format!(
                "ProducerId {} and ProducerEpoch {} must both be -1 or both be set",
                r.producer_id, r.producer_epoch
            ),
        ));
    }
    match r.transactional_id.as_deref() {
        None => Ok(()),
        Some("") => Err((
            ErrorCode::InvalidRequest,
            "an empty TransactionalId (null for a producer without transactions)".into(),
        )),
        Some(_) if !(1..=TRANSACTION_MAX_TIMEOUT_MS).contains(&r.transaction_timeout_ms) => Err((
            ErrorCode::InvalidTransactionTimeout,
            format!(
                "TransactionTimeoutMs {} is outside 1..={TRANSACTION_MAX_TIMEOUT_MS}",
                r.transaction_timeout_ms
            ),
        )),
        Some(t) => Err((
            ErrorCode::CoordinatorNotAvailable,
            format!(
                "transactional id {t:?}: kwire-server has no transaction coordinator (transactions are not served)"
            ),
        )),
    }
}
