require "json"
require "net/http"
require "uri"
require "logger"

module Weather
  API = "https://api.example.com"

  def self.forecast(city)
    uri = URI("#{API}/forecast?city=#{city}")
    res = Net::HTTP.get_response(uri, { "Accept" => "application/json" })
    raise "HTTP #{res.code}" unless res.is_a?(Net::HTTPSuccess)
    JSON.parse(res.body)
  end
end
