// POST /v1/exports: every record a query body matches, streamed (docs/api.md#export). Charged and
// leased as a query; the lease is held until the last chunk is written.
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

class ExportEndpoint final : public ReadEndpoint {
 public:
  using ReadEndpoint::ReadEndpoint;

  Operation operation() const override { return Operation::query; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
